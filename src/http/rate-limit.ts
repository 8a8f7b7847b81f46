import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Clock } from "../lib/clock.js";
import { RedisFallback } from "../lib/redis-fallback.js";
import { sendLayerError } from "./errors.js";

/** Fixed one-minute windows (SPEC "Limits": per minute). */
const WINDOW_MS = 60_000;
/** Neither limited nor given headers (CONTRACT §28): probes and scrapers must always get through. */
const EXEMPT = /^\/(healthz|metrics)(\/|$|\?)/;
/** Given the headers but not counted: the API description. */
const UNCOUNTED = /^\/(openapi\.json|docs)(\/|$|\?)/;

declare module "fastify" {
  interface FastifyContextConfig {
    /** false: the route is not counted (static web assets and page shells: cheap, and a page load fetches several); it still carries the headers. */
    rateLimit?: boolean;
  }
}

/** Whether requests to this route are counted, so can be answered 429 (the API description says so). */
export function isRateLimited(url: string, config: { rateLimit?: boolean } | undefined): boolean {
  return !EXEMPT.test(url) && !UNCOUNTED.test(url) && config?.rateLimit !== false;
}

export interface RateLimitStore {
  /** Counts one request for `key` in the window starting at `windowStart`; returns the count so far. */
  hit(key: string, windowStart: number): Promise<number>;
  /** The count so far for `key` in the window, without counting. */
  peek(key: string, windowStart: number): Promise<number>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private counts = new Map<string, number>();
  private window = 0;
  async hit(key: string, windowStart: number): Promise<number> {
    // Windows are global, so the whole map turns over at once: no per-key timers, no leak.
    if (windowStart !== this.window) {
      this.counts.clear();
      this.window = windowStart;
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count;
  }
  async peek(key: string, windowStart: number): Promise<number> {
    return windowStart === this.window ? (this.counts.get(key) ?? 0) : 0;
  }
}

/**
 * One command per request: the count, and the key's expiry set by the first hit of its window. (It
 * was MULTI + INCR + PEXPIRE + EXEC, a round of four commands and ioredis's transaction machinery on
 * every request.) ioredis sends it as EVALSHA and falls back to EVAL after a Redis restart.
 */
const HIT_SCRIPT = `local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`;

type RedisWithHit = Redis & { rateLimitHit(key: string, expiryMs: number): Promise<number> };

/**
 * Counters shared by every instance. When Redis cannot be reached the request is counted in this
 * process instead (CONTRACT §24): logged once per outage and visible in /metrics, never a failure.
 */
export class RedisRateLimitStore implements RateLimitStore {
  private fallback = new MemoryRateLimitStore();
  private redis: RedisWithHit;
  readonly guard: RedisFallback;
  constructor(redis: Redis, log: Logger) {
    redis.defineCommand("rateLimitHit", { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.redis = redis as RedisWithHit;
    this.guard = new RedisFallback(log, "rate limiting", "counting per process");
  }
  async hit(key: string, windowStart: number): Promise<number> {
    const redisKey = `rl:${windowStart}:${key}`;
    const count = await this.guard.run(async () => {
      const value = Number(await this.redis.rateLimitHit(redisKey, WINDOW_MS * 2));
      if (!Number.isFinite(value)) throw new Error("unexpected reply from redis");
      return value;
    });
    return count ?? this.fallback.hit(key, windowStart);
  }
  async peek(key: string, windowStart: number): Promise<number> {
    const count = await this.guard.run(async () => Number((await this.redis.get(`rl:${windowStart}:${key}`)) ?? 0));
    return count ?? this.fallback.peek(key, windowStart);
  }
}

/** A caller with a budget of its own: a session (RATE_LIMIT_AUTHENTICATED) or a merchant API key (RATE_LIMIT_API_KEY). */
export interface RateLimitSubject {
  key: string;
  authenticated: true;
  budget: "session" | "apiKey";
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set for a valid session (identity/session-caller.ts) or API key (merchant-credentials/api-key-caller.ts), before rate limiting runs. */
    rateLimitSubject?: RateLimitSubject;
  }
}

export interface RateLimitOptions {
  store: RateLimitStore;
  clock: Clock;
  anonymous: number;
  authenticated: number;
  apiKey: number;
}

/**
 * X-RateLimit-* on every response (SPEC "Limits"; issue 16 departure 4: pages, redirects and static
 * assets too, only /healthz and /metrics without); 429 past the limit. Anonymous by client address,
 * sessions by session, merchant API keys by key (CONTRACT §41). Pages, assets and the API description show the window's state without
 * counting, so loading a page does not use up the API's allowance.
 */
export function registerRateLimit(app: FastifyInstance, options: RateLimitOptions): void {
  app.addHook("onRequest", async (request: FastifyRequest, reply) => {
    if (EXEMPT.test(request.url)) return;
    const counted = request.routeOptions.config?.rateLimit !== false && !UNCOUNTED.test(request.url);
    const subject = request.rateLimitSubject;
    const limit = !subject ? options.anonymous : subject.budget === "apiKey" ? options.apiKey : options.authenticated;
    const key = subject ? `s:${subject.key}` : `a:${request.ip}`;
    const now = options.clock.now();
    const windowStart = now - (now % WINDOW_MS);
    const count = counted ? await options.store.hit(key, windowStart) : await options.store.peek(key, windowStart);
    const resetSeconds = Math.ceil((windowStart + WINDOW_MS) / 1000);
    reply.header("x-ratelimit-limit", limit);
    reply.header("x-ratelimit-remaining", Math.max(0, limit - count));
    reply.header("x-ratelimit-reset", resetSeconds);
    if (counted && count > limit) {
      reply.header("retry-after", Math.max(1, resetSeconds - Math.floor(now / 1000)));
      return sendLayerError(reply, 429, { error: "Too many requests", code: "RATE_LIMITED", details: `limit ${limit} per minute` });
    }
  });
}
