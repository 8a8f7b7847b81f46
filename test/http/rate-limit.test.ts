// Rate limits (SPEC "Limits", CONTRACT §24, §28): per-minute windows, headers on every response,
// 429 past the limit, counters shared through Redis, and a per-process fallback when Redis is down.
import { randomInt } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { registerOwner } from "../support/admin.js";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { bearer, createApiKey } from "../support/merchant.js";

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

// CONTRACT §41 (issue 31 item 8): a valid API key is counted against the key's own budget, not the
// client address; an invalid key counts against the address like any anonymous request.
describe("API keys have their own budget", () => {
  const checkout = (t: TestApp, remoteAddress: string, secret: string, n: number) =>
    t.app.inject({
      method: "POST",
      url: "/api/v1/checkouts",
      remoteAddress,
      headers: { ...bearer(secret), "content-type": "application/json" },
      payload: JSON.stringify({ orderId: `budget-${n}-${randomInt(1e9)}`, amount: 1500, currency: "USD", productName: "Plan" }),
    });

  it("25 checkouts with a valid key from one address all pass under a low anonymous limit; a wrong key counts against the address", async () => {
    const t = await open({ RATE_LIMIT_ANONYMOUS: "3" });
    const { secret } = await createApiKey(t, (await registerOwner(t)).session);
    const address = randomAddress();
    const answers = [];
    for (let i = 0; i < 25; i++) answers.push(await checkout(t, address, secret, i));
    expect(answers.map((res) => res.statusCode)).toEqual(Array(25).fill(201));
    expect(new Set(answers.map((res) => res.headers["x-ratelimit-limit"]))).toEqual(new Set([String(t.deps.config.rateLimit.apiKey)]));
    // The key's budget is at least the session's (CONTRACT §41).
    expect(t.deps.config.rateLimit.apiKey).toBeGreaterThanOrEqual(t.deps.config.rateLimit.authenticated);

    // A well-formed key nobody issued: the address's anonymous budget (3), then 429.
    const wrong = `sk_${"x".repeat(40)}`;
    const refused = [];
    for (let i = 0; i < 4; i++) refused.push((await checkout(t, address, wrong, 100 + i)).statusCode);
    expect(refused).toEqual([401, 401, 401, 429]);
    // The address is spent; the valid key from it still works.
    expect((await checkout(t, address, secret, 200)).statusCode).toBe(201);
  });

  it("refuses the request past the key's budget (RATE_LIMIT_API_KEY), whatever address it comes from", async () => {
    const t = await open({ RATE_LIMIT_ANONYMOUS: "2", RATE_LIMIT_AUTHENTICATED: "4", RATE_LIMIT_API_KEY: "5" });
    const { secret } = await createApiKey(t, (await registerOwner(t)).session);
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await checkout(t, randomAddress(), secret, i)).statusCode);
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    t.clock.advance(60_000);
    expect((await checkout(t, randomAddress(), secret, 7)).statusCode).toBe(201);
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
