// Redis faults (CONTRACT §24): a private Redis stopped under load → no failed request, the fallback
// is logged and shown in /metrics; Redis back → the instances share their counters again.
import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterSkipReason, startCluster, type Answer, type Cluster } from "./cluster.js";
import { redisSkipReason, startRedis, type RedisServer } from "./servers.js";

const skip = clusterSkipReason() ?? redisSkipReason();
if (skip) console.warn(`test/cluster/redis-faults: ${skip}`);

async function until(predicate: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<number> {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return Date.now() - started;
}

const gauge = async (baseUrl: string, name: string) => {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(" ")[1]) : undefined;
};

describe.skipIf(skip !== null)("Redis stopped and started under load", () => {
  let cluster: Cluster;
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
    cluster = await startCluster({ instances: 2, redisUrl: redis.url, env: { RATE_LIMIT_ANONYMOUS: "100000", TRUST_PROXY: "true" } });
  });
  afterAll(async () => {
    await cluster?.stop();
    await redis?.stop();
  });

  it("no failed request while Redis is away; logged and in /metrics; shared counting resumes when it is back", async () => {
    const answers: Answer[] = [];
    let running = true;
    const loops = Array.from({ length: 4 }, async () => {
      while (running) answers.push(await cluster.client.request("POST", "/api/token/generate", { body: {}, headers: { "x-forwarded-for": "198.51.100.7" } }));
    });
    await until(() => answers.length >= 20);
    await redis.stop();
    const stoppedAt = answers.length;
    await until(() => answers.length >= stoppedAt + 40);
    for (const instance of cluster.instances) {
      expect(await gauge(instance.baseUrl, "rate_limit_redis_fallback_active")).toBe(1);
      expect(await gauge(instance.baseUrl, "rate_limit_redis_fallbacks_total")).toBeGreaterThan(0);
      expect(instance.output()).toContain("rate limiting: redis unreachable, counting per process until it is back");
    }

    await redis.start();
    const backMs = await until(async () => {
      const flags = await Promise.all(cluster.instances.map((i) => gauge(i.baseUrl, "rate_limit_redis_fallback_active")));
      return flags.every((f) => f === 0);
    });
    running = false;
    await Promise.all(loops);
    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.text}`)).toEqual([]);
    for (const instance of cluster.instances) expect(instance.output()).toContain("rate limiting: redis reachable again");

    // Shared again: one client's remaining count goes down by one per request, whichever instance.
    const client = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
    const remaining: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await cluster.client.request("GET", "/api/no-such-route", { instance: i % 2, headers: { "x-forwarded-for": client } });
      remaining.push(Number(res.headers.get("x-ratelimit-remaining")));
    }
    expect(remaining).toEqual([99999, 99998, 99997, 99996, 99995, 99994]);
    console.info(`redis restart: ${answers.length} requests, 0 failed; both instances back on Redis ${backMs} ms after it started`);
  });
});
