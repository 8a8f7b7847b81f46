// Rate limits across instances: three processes on one Redis enforce one limit exactly (the N+1st
// request in a window is refused whichever instance it reaches), and X-Forwarded-For names the
// client only with TRUST_PROXY=true. A private redis-server keeps these counters away from other tests.
import { randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterSkipReason, startCluster, type Cluster } from "./cluster.js";
import { redisSkipReason, startRedis, type RedisServer } from "./servers.js";

const skip = clusterSkipReason() ?? redisSkipReason();
if (skip) console.warn(`test/cluster/rate-limit: ${skip}`);

const LIMIT = 7;
const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

/** Fixed one-minute windows: start a burst well inside one, so it is never split across two. */
async function awayFromWindowEdge(): Promise<void> {
  const intoWindow = Date.now() % 60_000;
  if (intoWindow > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoWindow + 100));
}

describe.skipIf(skip !== null)("rate limits across three instances on one Redis", () => {
  let cluster: Cluster;
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
    cluster = await startCluster({ instances: 3, redisUrl: redis.url, env: { RATE_LIMIT_ANONYMOUS: String(LIMIT), TRUST_PROXY: "true" } });
  });
  afterAll(async () => {
    await cluster?.stop();
    await redis?.stop();
  });

  it("the N+1st request in a window is refused on every instance, after N spread over all three", async () => {
    await awayFromWindowEdge();
    const client = address();
    const get = (instance: number) => cluster.client.request("GET", "/api/no-such-route", { instance, headers: { "x-forwarded-for": client } });
    const allowed = [];
    for (let i = 0; i < LIMIT; i++) allowed.push(await get(i % 3));
    expect(allowed.map((r) => r.status)).toEqual(Array(LIMIT).fill(404));
    expect(allowed.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual(["6", "5", "4", "3", "2", "1", "0"]);
    for (const instance of [0, 1, 2]) {
      const refused = await get(instance);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ error: "Too many requests", code: "RATE_LIMITED", details: `limit ${LIMIT} per minute` });
    }
  });

  it("a concurrent burst of 30 over three instances lets exactly the limit through", async () => {
    await awayFromWindowEdge();
    const client = address();
    const burst = await Promise.all(Array.from({ length: 30 }, () => cluster.client.request("GET", "/api/no-such-route", { headers: { "x-forwarded-for": client } })));
    expect(new Set(burst.map((r) => r.instance)).size).toBe(3);
    expect(burst.filter((r) => r.status === 404)).toHaveLength(LIMIT);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(30 - LIMIT);
  });

  it("X-Forwarded-For names the client only with TRUST_PROXY=true", async () => {
    const untrusting = await cluster.add({ TRUST_PROXY: "false" });
    const index = cluster.instances.indexOf(untrusting);
    await awayFromWindowEdge();
    // Trusted: each forwarded address has its own counter, well past the limit in total.
    const trusted = await Promise.all(Array.from({ length: 3 * LIMIT }, (_, i) => cluster.client.request("GET", "/api/no-such-route", { instance: i % 3, headers: { "x-forwarded-for": `192.0.2.${i + 1}` } })));
    expect(trusted.every((r) => r.status === 404)).toBe(true);

    // Not trusted: the header is ignored, every request counts against the connection's address.
    const spoofed = [];
    for (let i = 0; i <= LIMIT; i++) spoofed.push(await cluster.client.request("GET", "/api/no-such-route", { instance: index, headers: { "x-forwarded-for": address() } }));
    expect(spoofed.slice(0, LIMIT).every((r) => r.status === 404)).toBe(true);
    expect(spoofed[LIMIT].status).toBe(429);
  });
});
