// Success rates for success-rate routing (issue 34 item 3): per brand × mode, each segment (provider ×
// card brand × currency) keeps its last N attempts (SUCCESS_RATE_WINDOW) as a ring of bits (approved
// or not; a failure is not an approval) beside two counters, in Redis when REDIS_URL is set (every
// instance sees the same rates) or in this process. A pay request loads all of a brand's counters in
// one round trip (one HGETALL) and looks segments up synchronously (docs/orchestration.md "Success-rate routing").
//
// A change shows before the window has turned over: when a segment's last SUCCESS_RATE_MIN_ATTEMPTS
// attempts disagree with its older ones by more than chance (CHANGE_Z standard errors), its rate is
// the recent attempts' (a provider whose approvals dropped, or one that recovered while it only got
// the exploration share). docs/orchestration.md says so; bench/routing-simulation.mjs measures it.
//
// Every attempt also counts in its provider × currency segment across card brands (card brand "*"):
// the lookup falls back to it when the card brand's own segment has too few attempts, or when the
// card brand is not known yet.
import type { Redis } from "ioredis";
import type { SuccessRateSettings } from "../../config/orchestration-settings.js";
import type { PaymentProviderType } from "../../providers/types.js";
import { redisPrefix } from "./health.js";
import type { RouteCounters } from "./route.js";

export type SuccessRateLookup = RouteCounters["successRate"];

export interface SegmentAttempt {
  brandId: string;
  livemode: boolean;
  provider: PaymentProviderType;
  cardBrand: string | null;
  currency: string;
  approved: boolean;
}

/** A segment's window: its attempts (at most the window), the approvals among them, and among its last `minAttempts`. */
export interface SegmentCounts {
  attempts: number;
  approved: number;
  recentApproved: number;
}

/** Where the windows live. Errors reach the caller (orchestration.ts falls back to process memory). */
export interface SuccessRateStore {
  record(attempt: SegmentAttempt): Promise<void>;
  /** Every segment's counts for one brand and mode, by segment name. */
  load(brandId: string, livemode: boolean): Promise<Map<string, SegmentCounts>>;
}

/** How many standard errors the recent attempts must stand from the older ones for the rate to be theirs. */
export const CHANGE_Z = 2;

/** Across card brands. */
const ANY_BRAND = "*";
/** A card whose brand is not known. */
const NO_BRAND = "-";
const segmentOf = (provider: string, cardBrand: string, currency: string) => `${provider}|${cardBrand}|${currency.toUpperCase()}`;
const segmentsOf = (a: SegmentAttempt) => [segmentOf(a.provider, a.cardBrand ? a.cardBrand.toLowerCase() : NO_BRAND, a.currency), segmentOf(a.provider, ANY_BRAND, a.currency)];

/**
 * A segment's rate: approvals among its window's attempts; or, when the last `recent` attempts
 * disagree with the older ones by more than CHANGE_Z standard errors (a change), theirs.
 */
export function rateOf(counts: SegmentCounts, recent: number): { rate: number; attempts: number } | null {
  if (counts.attempts < recent) return null;
  const whole = counts.approved / counts.attempts;
  const older = counts.attempts - recent;
  if (older > 0) {
    const recentRate = counts.recentApproved / recent;
    const olderRate = (counts.approved - counts.recentApproved) / older;
    // The pooled rate's standard error of the difference (at least one attempt's worth, so 100 % against 99 % is no change).
    const spread = Math.sqrt(Math.max(whole * (1 - whole), 1 / counts.attempts) * (1 / recent + 1 / older));
    if (Math.abs(recentRate - olderRate) > CHANGE_Z * spread) return { rate: recentRate, attempts: recent };
  }
  return { rate: whole, attempts: counts.attempts };
}

/** The synchronous lookup route() reads: the card brand's segment, else the provider's across card brands, else null. */
export function lookupOf(segments: Map<string, SegmentCounts>, minAttempts: number): SuccessRateLookup {
  const rate = (segment: string) => {
    const counts = segments.get(segment);
    return counts ? rateOf(counts, minAttempts) : null;
  };
  return (provider, cardBrand, currency) => (cardBrand ? rate(segmentOf(provider, cardBrand.toLowerCase(), currency)) : null) ?? rate(segmentOf(provider, ANY_BRAND, currency));
}

interface Ring {
  bits: Uint8Array;
  /** Attempts ever recorded (the next position is count % window). */
  count: number;
  approved: number;
  /** Approvals among the last minAttempts. */
  recentApproved: number;
}

/** The windows of this process. */
export class MemorySuccessRateStore implements SuccessRateStore {
  private brands = new Map<string, Map<string, Ring>>();
  constructor(private settings: SuccessRateSettings) {}

  async record(attempt: SegmentAttempt): Promise<void> {
    const key = redisPrefix(attempt.brandId, attempt.livemode);
    let segments = this.brands.get(key);
    if (!segments) this.brands.set(key, (segments = new Map()));
    const { window: n, minAttempts: k } = this.settings;
    const bit = attempt.approved ? 1 : 0;
    for (const segment of segmentsOf(attempt)) {
      let ring = segments.get(segment);
      if (!ring) segments.set(segment, (ring = { bits: new Uint8Array(n), count: 0, approved: 0, recentApproved: 0 }));
      // What leaves the window, and what leaves the recent attempts, read before the slot is written.
      const leavesWindow = ring.count >= n ? ring.bits[ring.count % n]! : 0;
      const leavesRecent = ring.count >= k ? ring.bits[(ring.count - k) % n]! : 0;
      ring.bits[ring.count % n] = bit;
      ring.approved += bit - leavesWindow;
      ring.recentApproved += bit - leavesRecent;
      ring.count++;
    }
  }

  /** Synchronous: the bench and the fallback read it without a round trip. */
  loadNow(brandId: string, livemode: boolean): Map<string, SegmentCounts> {
    const segments = this.brands.get(redisPrefix(brandId, livemode));
    const out = new Map<string, SegmentCounts>();
    for (const [segment, ring] of segments ?? []) out.set(segment, { attempts: Math.min(ring.count, this.settings.window), approved: ring.approved, recentApproved: ring.recentApproved });
    return out;
  }

  async load(brandId: string, livemode: boolean): Promise<Map<string, SegmentCounts>> {
    return this.loadNow(brandId, livemode);
  }
}

/** A window's keys live a week after its brand's last attempt. */
const REDIS_TTL_MS = 7 * 24 * 3600 * 1000;

// KEYS[1]: the brand's counters hash (<segment>:n attempts ever, <segment>:ok approvals in the window,
// <segment>:k approvals among the last `recent`); KEYS[2..]: each segment's ring (a bit string of
// `window` bits). ARGV: window, recent, ttl, approved (1/0), then the segments in KEYS[2..]'s order. A
// ring that expired (or never existed) restarts its segment.
const RECORD_SCRIPT = `local counters = KEYS[1]
local window = tonumber(ARGV[1])
local recent = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local bit = tonumber(ARGV[4])
for i = 2, #KEYS do
  local ring, segment = KEYS[i], ARGV[i + 3]
  if redis.call('EXISTS', ring) == 0 then redis.call('HDEL', counters, segment .. ':n', segment .. ':ok', segment .. ':k') end
  local count = redis.call('HINCRBY', counters, segment .. ':n', 1) - 1
  local leavesWindow, leavesRecent = 0, 0
  if count >= window then leavesWindow = redis.call('GETBIT', ring, count % window) end
  if count >= recent then leavesRecent = redis.call('GETBIT', ring, (count - recent) % window) end
  redis.call('SETBIT', ring, count % window, bit)
  if bit ~= leavesWindow then redis.call('HINCRBY', counters, segment .. ':ok', bit - leavesWindow) end
  if bit ~= leavesRecent then redis.call('HINCRBY', counters, segment .. ':k', bit - leavesRecent) end
  redis.call('PEXPIRE', ring, ttl)
end
redis.call('PEXPIRE', counters, ttl)
return 1`;

type RedisWithRates = Redis & { successRateRecord(...args: (string | number)[]): Promise<number> };

/** The windows every instance shares. */
export class RedisSuccessRateStore implements SuccessRateStore {
  private redis: RedisWithRates;
  constructor(
    redis: Redis,
    private settings: SuccessRateSettings,
  ) {
    redis.defineCommand("successRateRecord", { lua: RECORD_SCRIPT });
    this.redis = redis as RedisWithRates;
  }

  // The sizes are in the key names: a new SUCCESS_RATE_WINDOW or SUCCESS_RATE_MIN_ATTEMPTS starts new windows.
  private get sizes() {
    return `${this.settings.window}:${this.settings.minAttempts}`;
  }

  private countersKey(brandId: string, livemode: boolean) {
    return `${redisPrefix(brandId, livemode)}:sr:${this.sizes}`;
  }

  async record(attempt: SegmentAttempt): Promise<void> {
    const segments = segmentsOf(attempt);
    const rings = segments.map((segment) => `${redisPrefix(attempt.brandId, attempt.livemode)}:ring:${this.sizes}:${segment}`);
    const { window, minAttempts } = this.settings;
    await this.redis.successRateRecord(1 + rings.length, this.countersKey(attempt.brandId, attempt.livemode), ...rings, window, minAttempts, REDIS_TTL_MS, attempt.approved ? 1 : 0, ...segments);
  }

  async load(brandId: string, livemode: boolean): Promise<Map<string, SegmentCounts>> {
    const fields = await this.redis.hgetall(this.countersKey(brandId, livemode));
    const out = new Map<string, SegmentCounts>();
    for (const [field, value] of Object.entries(fields)) {
      if (!field.endsWith(":n")) continue;
      const segment = field.slice(0, -2);
      out.set(segment, { attempts: Math.min(Number(value), this.settings.window), approved: Number(fields[`${segment}:ok`] ?? 0), recentApproved: Number(fields[`${segment}:k`] ?? 0) });
    }
    return out;
  }
}
