// Rate limits (SPEC "Limits", CONTRACT §24, §28): per-minute windows, headers on every response,
// 429 past the limit, counters shared through Redis, and a per-process fallback when Redis is down.
import { randomInt } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";

const opened: TestApp[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.close()));
});
async function open(env: Record<string, string>, clock?: TestApp["clock"]) {
  const t = await buildTestApp({ env, clock });
  opened.push(t);
  return t;
}
const randomAddress = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const hit = (t: TestApp, remoteAddress: string) => t.app.inject({ method: "GET", url: "/api/nope", remoteAddress });

describe("rate limiting in memory", () => {
  it("counts anonymous requests per client address and refuses the one past the limit", async () => {
    const t = await open({ RATE_LIMIT_ANONYMOUS: "3" });
    const address = randomAddress();
    const remaining = [];
    for (let i = 0; i < 3; i++) {
      const res = await hit(t, address);
      expect(res.statusCode).toBe(404);
      expect(res.headers["x-ratelimit-limit"]).toBe("3");
      remaining.push(Number(res.headers["x-ratelimit-remaining"]));
    }
    expect(remaining).toEqual([2, 1, 0]);
    const refused = await hit(t, address);
    expect(refused.statusCode).toBe(429);
    expect(json(refused)).toMatchObject({ error: "Too many requests", code: "RATE_LIMITED" });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused.headers["x-ratelimit-reset"])).toBe(Math.ceil((t.clock.now() - (t.clock.now() % 60_000) + 60_000) / 1000));

    // Another client is not affected; the next window starts afresh.
    expect((await hit(t, randomAddress())).statusCode).toBe(404);
    t.clock.advance(60_000);
    expect((await hit(t, address)).statusCode).toBe(404);
  });

  it("puts the headers on pages, redirects and static assets too, without counting pages and assets (issue 16 departure 4)", async () => {
    const t = await open({ RATE_LIMIT_ANONYMOUS: "5" });
    const address = randomAddress();
    await hit(t, address);
    for (const url of ["/login", "/admin", "/success", "/checkout/abc.def.ghi", "/upsell/ups_x", "/c/unknown-code", "/assets/missing.js", "/openapi.json"]) {
      const res = await t.app.inject({ method: "GET", url, remoteAddress: address });
      expect(res.headers["x-ratelimit-limit"], url).toBe("5");
      expect(res.headers["x-ratelimit-reset"], url).toBeDefined();
      expect(Number(res.headers["x-ratelimit-remaining"]), url).toBeLessThanOrEqual(4);
    }
    // Pages and assets show the window's state without using it up: the API still has requests left.
    expect((await hit(t, address)).statusCode).toBe(404);
  });

  it("never limits /healthz", async () => {
    const t = await open({ RATE_LIMIT_ANONYMOUS: "1" });
    const address = randomAddress();
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ method: "GET", url: "/healthz", remoteAddress: address });
      expect(res.statusCode).toBe(200);
    }
  });

  it("uses X-Forwarded-For only with TRUST_PROXY", async () => {
    const untrusted = await open({ RATE_LIMIT_ANONYMOUS: "1" });
    const proxy = randomAddress();
    await untrusted.app.inject({ method: "GET", url: "/api/nope", remoteAddress: proxy, headers: { "x-forwarded-for": randomAddress() } });
    const spoofed = await untrusted.app.inject({ method: "GET", url: "/api/nope", remoteAddress: proxy, headers: { "x-forwarded-for": randomAddress() } });
    expect(spoofed.statusCode).toBe(429);

    const trusted = await open({ RATE_LIMIT_ANONYMOUS: "1", TRUST_PROXY: "true" });
    await trusted.app.inject({ method: "GET", url: "/api/nope", remoteAddress: proxy, headers: { "x-forwarded-for": randomAddress() } });
    const otherClient = await trusted.app.inject({ method: "GET", url: "/api/nope", remoteAddress: proxy, headers: { "x-forwarded-for": randomAddress() } });
    expect(otherClient.statusCode).toBe(404);
  });
});

describe.skipIf(!process.env.REDIS_URL)("rate limiting in Redis (REDIS_URL)", () => {
  it("shares one counter between instances", async () => {
    const a = await open({ RATE_LIMIT_ANONYMOUS: "3", REDIS_URL: process.env.REDIS_URL! });
    const b = await open({ RATE_LIMIT_ANONYMOUS: "3", REDIS_URL: process.env.REDIS_URL! }, a.clock);
    const address = randomAddress();
    expect((await hit(a, address)).statusCode).toBe(404);
    expect((await hit(b, address)).statusCode).toBe(404);
    expect((await hit(a, address)).statusCode).toBe(404);
    const fourth = await hit(b, address);
    expect(fourth.statusCode).toBe(429);
    expect(fourth.headers["x-ratelimit-remaining"]).toBe("0");
  });
});

describe("rate limiting when Redis is unreachable", () => {
  it("falls back to per-process counting, logs it, and never fails a request", async () => {
    const t = await open({ RATE_LIMIT_ANONYMOUS: "2", REDIS_URL: "redis://127.0.0.1:1" });
    const address = randomAddress();
    expect((await hit(t, address)).statusCode).toBe(404);
    expect((await hit(t, address)).statusCode).toBe(404);
    expect((await hit(t, address)).statusCode).toBe(429);
    expect(t.logs.join("")).toContain("redis unreachable");
  });
});
