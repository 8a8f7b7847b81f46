// Success rates for success-rate routing (issue 34 item 3): per brand × mode, each segment (provider ×
// card brand × currency) keeps an aged approval rate, in Redis when REDIS_URL is set (every instance
// sees the same rates) or in this process. A pay request loads all of a brand's rates in one round trip
// (one HGETALL) and looks segments up synchronously (docs/orchestration.md "Success-rate routing").
//
// Attempts age two ways, both by halves (an exponentially decayed count of attempts and of approvals;
// a failure is not an approval):
//   - with the segment's own attempts (SUCCESS_RATE_HALF_LIFE, 30): an attempt counts half after 30
//     more attempts of the same segment, so a provider most payments go to shows a drop within a few
//     dozen payments;
//   - with the traffic of its card brand × currency, all providers together (SUCCESS_RATE_TRAFFIC_HALF_LIFE,
//     300): an attempt counts half after 300 more payments there, so a provider that only gets the
//     exploration share does not stay judged by its old outcomes (a recovered provider's old declines
//     fade while its few new attempts count fully).
// The weight left (the aged number of attempts) goes with the rate: optimism.ts ranks a rate on few
// recent attempts optimistically, so a recovered provider is tried again and confirmed.
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

/** A segment now: attempts ever recorded, its aged weight (recent attempts) and its aged approval rate. */
export interface SegmentCounts {
  attempts: number;
  weight: number;
  rate: number;
}

/** Where the rates live. Errors reach the caller (orchestration.ts falls back to process memory). */
export interface SuccessRateStore {
  record(attempt: SegmentAttempt): Promise<void>;
  /** Every segment's counts for one brand and mode, by segment name, aged to now. */
  load(brandId: string, livemode: boolean): Promise<Map<string, SegmentCounts>>;
}

/** Across card brands. */
const ANY_BRAND = "*";
/** A card whose brand is not known. */
const NO_BRAND = "-";
/** The traffic a segment ages with: its card brand × currency (all providers). */
const contextOf = (cardBrand: string, currency: string) => `${cardBrand}|${currency.toUpperCase()}`;
const segmentOf = (provider: string, cardBrand: string, currency: string) => `${provider}|${contextOf(cardBrand, currency)}`;
/** The segments an attempt counts in, each with the traffic it ages with. */
function segmentsOf(a: SegmentAttempt): { segment: string; context: string }[] {
  const brand = a.cardBrand ? a.cardBrand.toLowerCase() : NO_BRAND;
  return [brand, ANY_BRAND].map((b) => ({ segment: segmentOf(a.provider, b, a.currency), context: contextOf(b, a.currency) }));
}
const contextOfSegment = (segment: string) => segment.slice(segment.indexOf("|") + 1);

/** A segment as stored: attempts ever, weight and rate as of the traffic count `at` of its card brand × currency. */
interface Stored {
  attempts: number;
  weight: number;
  rate: number;
  at: number;
}

/** The factor an attempt's weight keeps per later attempt of its segment. */
const ownFactor = (settings: SuccessRateSettings) => Math.pow(0.5, 1 / settings.halfLife);

/** A stored segment aged to the traffic count `now` of its card brand × currency. */
function agedTo(stored: Stored, now: number, settings: SuccessRateSettings): SegmentCounts {
  return { attempts: stored.attempts, weight: stored.weight * Math.pow(0.5, (now - stored.at) / settings.trafficHalfLife), rate: stored.rate };
}

/** A segment's rate and the weight it stands on; null under `minAttempts` attempts ever. */
export function rateOf(counts: SegmentCounts, minAttempts: number): { rate: number; attempts: number } | null {
  if (counts.attempts < minAttempts) return null;
  return { rate: counts.rate, attempts: counts.weight };
}

/** The synchronous lookup route() reads: the card brand's segment, else the provider's across card brands, else null. */
export function lookupOf(segments: Map<string, SegmentCounts>, minAttempts: number): SuccessRateLookup {
  const rate = (segment: string) => {
    const counts = segments.get(segment);
    return counts ? rateOf(counts, minAttempts) : null;
  };
  return (provider, cardBrand, currency) => (cardBrand ? rate(segmentOf(provider, cardBrand.toLowerCase(), currency)) : null) ?? rate(segmentOf(provider, ANY_BRAND, currency));
}

interface MemoryBrand {
  /** Attempts ever per card brand × currency. */
  traffic: Map<string, number>;
  segments: Map<string, Stored>;
}

/** The rates of this process. */
export class MemorySuccessRateStore implements SuccessRateStore {
  private brands = new Map<string, MemoryBrand>();
  constructor(private settings: SuccessRateSettings) {}

  async record(attempt: SegmentAttempt): Promise<void> {
    const key = redisPrefix(attempt.brandId, attempt.livemode);
    let brand = this.brands.get(key);
    if (!brand) this.brands.set(key, (brand = { traffic: new Map(), segments: new Map() }));
    const bit = attempt.approved ? 1 : 0;
    for (const { segment, context } of segmentsOf(attempt)) {
      const now = (brand.traffic.get(context) ?? 0) + 1;
      brand.traffic.set(context, now);
      const stored = brand.segments.get(segment);
      // The same arithmetic as RECORD_SCRIPT.
      const kept = stored ? stored.weight * Math.pow(0.5, (now - stored.at) / this.settings.trafficHalfLife) * ownFactor(this.settings) : 0;
      const weight = kept + 1;
      const rate = stored ? (stored.rate * kept + bit) / weight : bit;
      brand.segments.set(segment, { attempts: (stored?.attempts ?? 0) + 1, weight, rate, at: now });
    }
  }

  /** Synchronous: the bench and the fallback read it without a round trip. */
  loadNow(brandId: string, livemode: boolean): Map<string, SegmentCounts> {
    const brand = this.brands.get(redisPrefix(brandId, livemode));
    const out = new Map<string, SegmentCounts>();
    for (const [segment, stored] of brand?.segments ?? []) out.set(segment, agedTo(stored, brand!.traffic.get(contextOfSegment(segment)) ?? stored.at, this.settings));
    return out;
  }

  async load(brandId: string, livemode: boolean): Promise<Map<string, SegmentCounts>> {
    return this.loadNow(brandId, livemode);
  }
}

/** A brand's rates live a week after its last attempt. */
const REDIS_TTL_MS = 7 * 24 * 3600 * 1000;

// KEYS[1]: the brand's hash: `#<card brand>|<currency>` attempts ever of that traffic; per segment
// `<segment>:n` attempts ever, `<segment>:w` weight and `<segment>:r` rate as of `<segment>:t`, the
// traffic count of its last attempt. ARGV: the factor per own attempt, the traffic half-life, ttl,
// approved (1/0), then pairs of segment and traffic. Weights and rates are written with 17 digits
// (what a double needs), so every instance reads what process memory would hold.
const RECORD_SCRIPT = `local key = KEYS[1]
local own = tonumber(ARGV[1])
local halfLife = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local bit = tonumber(ARGV[4])
for i = 5, #ARGV, 2 do
  local segment, traffic = ARGV[i], ARGV[i + 1]
  local now = redis.call('HINCRBY', key, '#' .. traffic, 1)
  local old = redis.call('HMGET', key, segment .. ':n', segment .. ':w', segment .. ':r', segment .. ':t')
  local n, weight, rate = tonumber(old[1]) or 0, bit + 0, bit + 0
  if n > 0 then
    local kept = tonumber(old[2]) * math.pow(0.5, (now - tonumber(old[4])) / halfLife) * own
    weight = kept + 1
    rate = (tonumber(old[3]) * kept + bit) / weight
  else
    weight = 1
  end
  redis.call('HSET', key, segment .. ':n', n + 1, segment .. ':w', string.format('%.17g', weight), segment .. ':r', string.format('%.17g', rate), segment .. ':t', now)
end
redis.call('PEXPIRE', key, ttl)
return 1`;

type RedisWithRates = Redis & { successRateRecord(...args: (string | number)[]): Promise<number> };

/** The rates every instance shares. */
export class RedisSuccessRateStore implements SuccessRateStore {
  private redis: RedisWithRates;
  constructor(
    redis: Redis,
    private settings: SuccessRateSettings,
  ) {
    redis.defineCommand("successRateRecord", { lua: RECORD_SCRIPT });
    this.redis = redis as RedisWithRates;
  }

  // The half-lives are in the key name: new SUCCESS_RATE_HALF_LIFE or SUCCESS_RATE_TRAFFIC_HALF_LIFE start new rates.
  private key(brandId: string, livemode: boolean) {
    return `${redisPrefix(brandId, livemode)}:sra:${this.settings.halfLife}:${this.settings.trafficHalfLife}`;
  }

  async record(attempt: SegmentAttempt): Promise<void> {
    const pairs = segmentsOf(attempt).flatMap(({ segment, context }) => [segment, context]);
    await this.redis.successRateRecord(1, this.key(attempt.brandId, attempt.livemode), ownFactor(this.settings), this.settings.trafficHalfLife, REDIS_TTL_MS, attempt.approved ? 1 : 0, ...pairs);
  }

  async load(brandId: string, livemode: boolean): Promise<Map<string, SegmentCounts>> {
    const fields = await this.redis.hgetall(this.key(brandId, livemode));
    const out = new Map<string, SegmentCounts>();
    for (const [field, value] of Object.entries(fields)) {
      if (!field.endsWith(":n")) continue;
      const segment = field.slice(0, -2);
      const at = Number(fields[`${segment}:t`]);
      const stored = { attempts: Number(value), weight: Number(fields[`${segment}:w`]), rate: Number(fields[`${segment}:r`]), at };
      out.set(segment, agedTo(stored, Number(fields[`#${contextOfSegment(segment)}`] ?? at), this.settings));
    }
    return out;
  }
}
