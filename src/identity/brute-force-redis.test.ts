// The brute-force limits in Redis when REDIS_URL is set (issue 4), and the database fallback when
// Redis cannot be reached. Redis keeps its keys across runs: every test uses fresh emails and a
// fresh client address (TRUST_PROXY + X-Forwarded-For).
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { auditActions, call, PASSWORD, registerUser, uniqueEmail } from "../../test/support/identity.js";
import { ADDRESS_WINDOW_MS, LOCK_DURATION_MS, LOCK_WINDOW_MS } from "./policy.js";
import { loginThrottleKeys } from "./throttle.js";

const REDIS_URL = process.env.REDIS_URL;
const freshAddress = () => `2001:db8:${randomBytes(2).toString("hex")}::${randomBytes(2).toString("hex")}`;
const login = (t: TestApp, email: string, password: string, address: string) =>
  call(t, "POST", "/api/admin/auth", { body: { email, password }, headers: { "x-forwarded-for": address } });

describe.skipIf(!REDIS_URL)("brute-force limits in Redis", () => {
  let t: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    t = await buildTestApp({ env: { REDIS_URL: REDIS_URL!, TRUST_PROXY: "true" } });
    redis = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    redis.disconnect();
    await t.close();
  });

  it("counts failures per account and per address in Redis keys that expire", async () => {
    const user = await registerUser(t);
    const address = freshAddress();
    for (let i = 0; i < 3; i++) expect((await login(t, user.email, `wrong password ${i}`, address)).statusCode).toBe(401);
    const account = loginThrottleKeys.accountFailures(user.email);
    const perAddress = loginThrottleKeys.addressFailures(address);
    expect(await redis.get(account)).toBe("3");
    expect(await redis.get(perAddress)).toBe("3");
    const accountTtl = await redis.pttl(account);
    expect(accountTtl).toBeGreaterThan(LOCK_WINDOW_MS - 60_000);
    expect(accountTtl).toBeLessThanOrEqual(LOCK_WINDOW_MS);
    const addressTtl = await redis.pttl(perAddress);
    expect(addressTtl).toBeGreaterThan(ADDRESS_WINDOW_MS - 60_000);
    expect(addressTtl).toBeLessThanOrEqual(ADDRESS_WINDOW_MS);
    // A success clears the account's failures (not the address's).
    expect((await login(t, user.email, PASSWORD, address)).statusCode).toBe(200);
    expect(await redis.exists(account)).toBe(0);
    expect(await redis.get(perAddress)).toBe("3");
  });

  it("locks the account after 10 failures with a lock key of 30 minutes, audited", async () => {
    const user = await registerUser(t);
    const address = freshAddress();
    for (let i = 0; i < 9; i++) expect((await login(t, user.email, `wrong password ${i}`, address)).statusCode).toBe(401);
    const tenth = await login(t, user.email, "wrong password 9", address);
    expect(tenth.statusCode).toBe(401);
    expect(json(tenth).code).toBe("INVALID_CREDENTIALS");
    const lockTtl = await redis.pttl(loginThrottleKeys.accountLock(user.email));
    expect(lockTtl).toBeGreaterThan(LOCK_DURATION_MS - 60_000);
    expect(lockTtl).toBeLessThanOrEqual(LOCK_DURATION_MS);
    // Even the right password, from another address, is refused while the key lives.
    expect((await login(t, user.email, PASSWORD, freshAddress())).statusCode).toBe(429);
    // Past the lock mirrored in the database, the Redis key still refuses; once it is gone, login works.
    t.clock.advance(LOCK_DURATION_MS + 60_000);
    expect((await login(t, user.email, PASSWORD, freshAddress())).statusCode).toBe(429);
    await redis.del(loginThrottleKeys.accountLock(user.email));
    expect((await login(t, user.email, PASSWORD, freshAddress())).statusCode).toBe(200);
    const actions = (await auditActions(t)).filter((a) => a.resourceId === user.userId || (a.details as { email?: string } | null)?.email === user.email).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["user.lock", "user.throttle"]));
  });

  it("refuses an address whose Redis counter has reached the limit", async () => {
    const address = freshAddress();
    await redis.set(loginThrottleKeys.addressFailures(address), "30", "PX", 60_000);
    const res = await login(t, uniqueEmail("spray"), "wrong password x", address);
    expect(res.statusCode).toBe(429);
    expect(json(res).code).toBe("TOO_MANY_LOGIN_ATTEMPTS");
  });
});

describe("brute-force limits with Redis unreachable", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: { REDIS_URL: "redis://127.0.0.1:1" } });
  });
  afterAll(() => t.close());

  it("falls back to the database counters: still locks after 10 failures, logs the outage once", async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 9; i++) expect((await call(t, "POST", "/api/admin/auth", { body: { email: user.email, password: `wrong password ${i}` } })).statusCode).toBe(401);
    const tenth = await call(t, "POST", "/api/admin/auth", { body: { email: user.email, password: "wrong password 9" } });
    expect(tenth.statusCode).toBe(401);
    expect((await call(t, "POST", "/api/admin/auth", { body: { email: user.email, password: PASSWORD } })).statusCode).toBe(429);
    t.clock.advance(LOCK_DURATION_MS + 60_000);
    expect((await call(t, "POST", "/api/admin/auth", { body: { email: user.email, password: PASSWORD } })).statusCode).toBe(200);
    expect(t.logs.filter((line) => line.includes("login limits: redis unreachable"))).toHaveLength(1);
  });
});
