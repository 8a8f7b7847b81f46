// The shared rate-limit counter in Redis (REDIS_URL set): counts per key and window, and the key
// expires after two windows so Redis does not fill up with old windows.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisRateLimitStore } from "./rate-limit.js";

const REDIS_URL = process.env.REDIS_URL;

describe.skipIf(!REDIS_URL)("RedisRateLimitStore", () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL!);
  });
  afterAll(() => redis.disconnect());

  it("counts hits per key and window in one key that expires two windows later", async () => {
    const store = new RedisRateLimitStore(redis, pino({ level: "silent" }));
    const key = `test-${randomBytes(6).toString("hex")}`;
    const window = 1_000 * 60 * 1000;
    expect([await store.hit(key, window), await store.hit(key, window), await store.hit(key, window)]).toEqual([1, 2, 3]);
    expect(await store.hit(key, window + 60_000)).toBe(1);
    expect(await store.hit(`${key}-other`, window)).toBe(1);
    const ttl = await redis.pttl(`rl:${window}:${key}`);
    expect(ttl).toBeGreaterThan(100_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    expect(store.guard.fallbackCount).toBe(0);
  });

  it("counts concurrent hits exactly once each", async () => {
    const store = new RedisRateLimitStore(redis, pino({ level: "silent" }));
    const key = `test-${randomBytes(6).toString("hex")}`;
    const counts = await Promise.all(Array.from({ length: 50 }, () => store.hit(key, 0)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    await redis.del(`rl:0:${key}`);
  });

  it("keeps counting after Redis forgot its scripts (EVALSHA falls back to EVAL)", async () => {
    const store = new RedisRateLimitStore(redis, pino({ level: "silent" }));
    const key = `test-${randomBytes(6).toString("hex")}`;
    expect(await store.hit(key, 0)).toBe(1);
    await redis.script("FLUSH");
    expect(await store.hit(key, 0)).toBe(2);
    expect(store.guard.fallbackCount).toBe(0);
    await redis.del(`rl:0:${key}`);
  });
});
