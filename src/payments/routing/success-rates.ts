// Success rates for success-rate routing (issue 34 item 3): per brand × mode, each segment (provider ×
// card brand × currency) keeps its last N attempts (SUCCESS_RATE_WINDOW) as a ring of bits (approved
// or not; a failure is not an approval) beside two counters, in Redis when REDIS_URL is set (every
// instance sees the same rates) or in this process. A pay request loads all of a brand's counters in
// one round trip (one HGETALL) and looks segments up synchronously (docs/orchestration.md "Success-rate routing").
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

/** Where the windows live. Errors reach the caller (orchestration.ts falls back to process memory). */
export interface SuccessRateStore {
  record(attempt: SegmentAttempt): Promise<void>;
  /** Every segment's attempts in its window and approvals among them, for one brand and mode, by segment name. */
  load(brandId: string, livemode: boolean): Promise<Map<string, { attempts: number; approved: number }>>;
}

/** Across card brands. */
const ANY_BRAND = "*";
/** A card whose brand is not known. */
const NO_BRAND = "-";
const segmentOf = (provider: string, cardBrand: string, currency: string) => `${provider}|${cardBrand}|${currency.toUpperCase()}`;
const segmentsOf = (a: SegmentAttempt) => [segmentOf(a.provider, a.cardBrand ? a.cardBrand.toLowerCase() : NO_BRAND, a.currency), segmentOf(a.provider, ANY_BRAND, a.currency)];

/** The synchronous lookup route() reads: the card brand's segment, else the provider's across card brands, else null. */
export function lookupOf(segments: Map<string, { attempts: number; approved: number }>, minAttempts: number): SuccessRateLookup {
  const rateOf = (segment: string) => {
    const counts = segments.get(segment);
    return counts && counts.attempts >= minAttempts ? { rate: counts.approved / counts.attempts, attempts: counts.attempts } : null;
  };
  return (provider, cardBrand, currency) => (cardBrand ? rateOf(segmentOf(provider, cardBrand.toLowerCase(), currency)) : null) ?? rateOf(segmentOf(provider, ANY_BRAND, currency));
}

interface Ring {
  bits: Uint8Array;
  /** Attempts ever recorded (the next position is count % window). */
  count: number;
  approved: number;
}

/** The windows of this process. */
export class MemorySuccessRateStore implements SuccessRateStore {
  private brands = new Map<string, Map<string, Ring>>();
  constructor(private settings: SuccessRateSettings) {}

  async record(attempt: SegmentAttempt): Promise<void> {
    const key = redisPrefix(attempt.brandId, attempt.livemode);
    let segments = this.brands.get(key);
    if (!segments) this.brands.set(key, (segments = new Map()));
    const n = this.settings.window;
    for (const segment of segmentsOf(attempt)) {
      let ring = segments.get(segment);
      if (!ring) segments.set(segment, (ring = { bits: new Uint8Array(n), count: 0, approved: 0 }));
      const position = ring.count % n;
      if (ring.count >= n) ring.approved -= ring.bits[position]!;
      ring.bits[position] = attempt.approved ? 1 : 0;
      ring.approved += ring.bits[position]!;
      ring.count++;
    }
  }

  /** Synchronous: the bench and the fallback read it without a round trip. */
  loadNow(brandId: string, livemode: boolean): Map<string, { attempts: number; approved: number }> {
    const segments = this.brands.get(redisPrefix(brandId, livemode));
    const out = new Map<string, { attempts: number; approved: number }>();
    for (const [segment, ring] of segments ?? []) out.set(segment, { attempts: Math.min(ring.count, this.settings.window), approved: ring.approved });
    return out;
  }

  async load(brandId: string, livemode: boolean): Promise<Map<string, { attempts: number; approved: number }>> {
    return this.loadNow(brandId, livemode);
  }
}

/** A window's keys live a week after its brand's last attempt. */
const REDIS_TTL_MS = 7 * 24 * 3600 * 1000;

// KEYS[1]: the brand's counters hash (<segment>:n attempts ever, <segment>:ok approvals in the window);
// KEYS[2..]: each segment's ring (a bit string of `window` bits). ARGV: window, ttl, approved (1/0),
// then the segments in KEYS[2..]'s order. A ring that expired (or never existed) restarts its segment.
const RECORD_SCRIPT = `local counters = KEYS[1]
local window = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local bit = tonumber(ARGV[3])
for i = 2, #KEYS do
  local ring, segment = KEYS[i], ARGV[i + 2]
  if redis.call('EXISTS', ring) == 0 then redis.call('HDEL', counters, segment .. ':n', segment .. ':ok') end
  local n = redis.call('HINCRBY', counters, segment .. ':n', 1)
  local position = (n - 1) % window
  local old = 0
  if n > window then old = redis.call('GETBIT', ring, position) end
  redis.call('SETBIT', ring, position, bit)
  if bit ~= old then redis.call('HINCRBY', counters, segment .. ':ok', bit - old) end
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

  // The window's size is in the key names: a new SUCCESS_RATE_WINDOW starts new windows.
  private countersKey(brandId: string, livemode: boolean) {
    return `${redisPrefix(brandId, livemode)}:sr:${this.settings.window}`;
  }

  async record(attempt: SegmentAttempt): Promise<void> {
    const segments = segmentsOf(attempt);
    const rings = segments.map((segment) => `${redisPrefix(attempt.brandId, attempt.livemode)}:ring:${this.settings.window}:${segment}`);
    await this.redis.successRateRecord(1 + rings.length, this.countersKey(attempt.brandId, attempt.livemode), ...rings, this.settings.window, REDIS_TTL_MS, attempt.approved ? 1 : 0, ...segments);
  }

  async load(brandId: string, livemode: boolean): Promise<Map<string, { attempts: number; approved: number }>> {
    const fields = await this.redis.hgetall(this.countersKey(brandId, livemode));
    const out = new Map<string, { attempts: number; approved: number }>();
    for (const [field, value] of Object.entries(fields)) {
      if (!field.endsWith(":n")) continue;
      const segment = field.slice(0, -2);
      out.set(segment, { attempts: Math.min(Number(value), this.settings.window), approved: Number(fields[`${segment}:ok`] ?? 0) });
    }
    return out;
  }
}
