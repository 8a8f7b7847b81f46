import type { Redis } from "ioredis";
import type { Logger } from "pino";
import { sha256 } from "../lib/crypto.js";
import { RedisFallback } from "../lib/redis-fallback.js";
import { ADDRESS_WINDOW_MS, LOCK_DURATION_MS, LOCK_FAILURES, LOCK_WINDOW_MS } from "./policy.js";

/** Redis keys of the brute-force limits (emails and addresses hashed: no personal data in Redis). */
export const loginThrottleKeys = {
  accountFailures: (email: string) => `login:fail:acct:${sha256(email)}`,
  addressFailures: (address: string) => `login:fail:addr:${sha256(address)}`,
  accountLock: (email: string) => `login:lock:${sha256(email)}`,
};

/**
 * The brute-force counters in Redis (CONTRACT §23, issue 4), shared by every instance. Each method
 * answers `undefined` when Redis cannot be reached: the caller then uses the database counters.
 * The outage is logged once (and its end), a login never fails because of Redis.
 */
export class RedisLoginThrottle {
  private readonly guard: RedisFallback;
  constructor(
    private redis: Redis,
    log: Logger,
  ) {
    this.guard = new RedisFallback(log, "login limits", "counting in the database");
  }

  /** Milliseconds the account stays locked (0: not locked). */
  lockRemainingMs(email: string): Promise<number | undefined> {
    return this.run(async () => {
      const ttl = await this.redis.pttl(loginThrottleKeys.accountLock(email));
      return ttl > 0 ? ttl : 0;
    });
  }

  /** Failed password logins from the address within the current window. */
  addressFailures(address: string): Promise<number | undefined> {
    return this.run(async () => Number((await this.redis.get(loginThrottleKeys.addressFailures(address))) ?? 0));
  }

  /**
   * Counts one failure for the account and the address. Windows start at the first failure
   * (`PEXPIRE … NX`) so "10 in 15 minutes" holds exactly. At the 10th failure the account's
   * lock key is set with a 30-minute TTL and its counter starts over. Answers whether it locked.
   */
  recordFailure(email: string, address: string | null): Promise<{ locked: boolean } | undefined> {
    return this.run(async () => {
      const account = loginThrottleKeys.accountFailures(email);
      const multi = this.redis.multi().incr(account).pexpire(account, LOCK_WINDOW_MS, "NX");
      if (address) multi.incr(loginThrottleKeys.addressFailures(address)).pexpire(loginThrottleKeys.addressFailures(address), ADDRESS_WINDOW_MS, "NX");
      const results = await multi.exec();
      const failures = replyNumber(results?.[0]);
      if (failures < LOCK_FAILURES) return { locked: false };
      const locked = await this.redis.multi().set(loginThrottleKeys.accountLock(email), "1", "PX", LOCK_DURATION_MS).del(account).exec();
      if (!locked || locked.some(([error]) => error)) throw new Error("redis refused the lock");
      return { locked: true };
    });
  }

  /** A success: failures before it don't count towards a lock. */
  recordSuccess(email: string): Promise<void | undefined> {
    return this.run(async () => {
      await this.redis.del(loginThrottleKeys.accountFailures(email));
    });
  }

  private run<T>(operation: () => Promise<T>): Promise<T | undefined> {
    return this.guard.run(operation);
  }
}

function replyNumber(reply: [Error | null, unknown] | undefined): number {
  if (!reply || reply[0]) throw reply?.[0] ?? new Error("no reply from redis");
  const value = Number(reply[1]);
  if (!Number.isFinite(value)) throw new Error("unexpected reply from redis");
  return value;
}
