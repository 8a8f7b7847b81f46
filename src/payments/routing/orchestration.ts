// The Orchestration object of issue 34 (SEAMS-34.md §3): provider health (health.ts) and success rates
// (success-rates.ts) behind one interface, built once per process (src/deps.ts) and handed to verbs as
// ctx.orchestration. With REDIS_URL every instance shares them; when Redis does not answer, this
// process keeps counting alone (CONTRACT §24: logged once per outage), and a payment never fails for it.
import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { OrchestrationSettings } from "../../config/orchestration-settings.js";
import type { AttemptResult, Orchestration } from "../../ctx.js";
import type { Clock } from "../../lib/clock.js";
import { RedisFallback } from "../../lib/redis-fallback.js";
import type { PaymentProviderType } from "../../providers/types.js";
import { CIRCUIT_STATE_VALUE, MemoryCircuitStore, modeOf, RedisCircuitStore, type CircuitRef, type CircuitState, type CircuitStore } from "./health.js";
import type { RouteCounters } from "./route.js";
import { lookupOf, MemorySuccessRateStore, RedisSuccessRateStore, type SuccessRateStore } from "./success-rates.js";

// The seam's types (SEAMS-34.md §3) live in src/ctx.ts, below payments/ in the layers, so Deps and Ctx can carry them.
export type { AttemptResult, Orchestration };

/** One circuit's state for checkout_provider_circuit_state (src/metrics/metrics.ts). */
export interface CircuitReading {
  provider: string;
  brand: string;
  mode: "live" | "test";
  /** 0 closed, 1 half-open, 2 open. */
  value: number;
}

/** Attempts this process recorded, for checkout_provider_attempts_total. */
export interface AttemptTally {
  provider: string;
  mode: "live" | "test";
  result: AttemptResult;
  count: number;
}

/** What /metrics reads of the orchestration (passed to Metrics as functions: metrics/ imports no payment rule). */
export interface OrchestrationReadings {
  circuitStates(): Promise<CircuitReading[]>;
  attemptTallies(): AttemptTally[];
}

export interface OrchestrationOptions {
  settings: OrchestrationSettings;
  clock: Clock;
  log: Logger;
  /** The shared Redis client (REDIS_URL); null: this process only. */
  redis?: Redis | null;
}

export class OrchestrationService implements Orchestration, OrchestrationReadings {
  private readonly memoryCircuits: CircuitStore;
  private readonly memoryRates: SuccessRateStore;
  private readonly redisCircuits: CircuitStore | null;
  private readonly redisRates: SuccessRateStore | null;
  /** Logs the outage once and counts fallbacks; isDegraded while Redis does not answer. */
  readonly guard: RedisFallback;
  /** The circuits this process has met (checkout_provider_circuit_state reports these). */
  private readonly known = new Map<string, CircuitRef>();
  private readonly tallies = new Map<string, AttemptTally>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly settings: OrchestrationSettings;

  constructor(options: OrchestrationOptions) {
    this.settings = options.settings;
    this.clock = options.clock;
    this.log = options.log;
    this.memoryCircuits = new MemoryCircuitStore(options.settings.circuit);
    this.memoryRates = new MemorySuccessRateStore(options.settings.successRates);
    this.redisCircuits = options.redis ? new RedisCircuitStore(options.redis, options.settings.circuit) : null;
    this.redisRates = options.redis ? new RedisSuccessRateStore(options.redis, options.settings.successRates) : null;
    this.guard = new RedisFallback(options.log, "provider health and success rates", "keeping them per process");
  }

  /** Runs `operation` on the Redis store when there is one; on a Redis failure (or none), on process memory. */
  private async either<S, T>(redisStore: S | null, memoryStore: S, operation: (store: S) => Promise<T>): Promise<T> {
    if (redisStore) {
      const answer = await this.guard.run(async () => ({ value: await operation(redisStore) }));
      if (answer) return answer.value;
    }
    return operation(memoryStore);
  }

  private know(ref: CircuitRef): void {
    const key = `${ref.brandId}|${modeOf(ref.livemode)}|${ref.provider}`;
    if (!this.known.has(key)) this.known.set(key, { brandId: ref.brandId, livemode: ref.livemode, provider: ref.provider });
  }

  async available(brandId: string, livemode: boolean, providers: readonly PaymentProviderType[]): Promise<PaymentProviderType[]> {
    if (providers.length === 0) return [];
    for (const provider of providers) this.know({ brandId, livemode, provider });
    const now = this.clock.now();
    try {
      const passes = await this.either(this.redisCircuits, this.memoryCircuits, (store) => store.admit(brandId, livemode, providers, now));
      return providers.filter((_, i) => passes[i]);
    } catch (error) {
      // Never a reason to refuse a payment: every provider stays available.
      this.log.warn({ err: error }, "provider health: could not read the circuits, every provider stays available");
      return [...providers];
    }
  }

  async record(attempt: { brandId: string; livemode: boolean; provider: PaymentProviderType; cardBrand: string | null; currency: string; result: AttemptResult }): Promise<void> {
    try {
      const ref = { brandId: attempt.brandId, livemode: attempt.livemode, provider: attempt.provider };
      this.know(ref);
      this.tally(attempt.provider, attempt.livemode, attempt.result);
      const now = this.clock.now();
      const segment = { ...attempt, approved: attempt.result === "approved" };
      // Both sent at once: one round trip.
      const [state] = await Promise.all([
        this.either(this.redisCircuits, this.memoryCircuits, (store) => store.record(ref, attempt.result === "failed", now)),
        this.either(this.redisRates, this.memoryRates, (store) => store.record(segment)),
      ]);
      if (state === "open" && attempt.result === "failed") {
        this.log.warn({ provider: attempt.provider, brandId: attempt.brandId, livemode: attempt.livemode }, "provider circuit open: the provider is skipped until a probe succeeds");
      }
    } catch (error) {
      this.log.warn({ err: error }, "provider health: an attempt could not be recorded");
    }
  }

  async successRates(brandId: string, livemode: boolean): Promise<RouteCounters["successRate"]> {
    try {
      const segments = await this.either(this.redisRates, this.memoryRates, (store) => store.load(brandId, livemode));
      return lookupOf(segments, this.settings.successRates.minAttempts);
    } catch (error) {
      this.log.warn({ err: error }, "success rates: could not be read, routing keeps the rule's order");
      return () => null;
    }
  }

  private tally(provider: string, livemode: boolean, result: AttemptResult): void {
    const key = `${provider}|${livemode}|${result}`;
    const tally = this.tallies.get(key);
    if (tally) tally.count++;
    else this.tallies.set(key, { provider, mode: modeOf(livemode), result, count: 1 });
  }

  attemptTallies(): AttemptTally[] {
    return [...this.tallies.values()].map((t) => ({ ...t }));
  }

  /** The known circuits' states (from Redis when it answers, one round trip), at scrape time. */
  async circuitStates(): Promise<CircuitReading[]> {
    const refs = [...this.known.values()];
    const now = this.clock.now();
    let states: CircuitState[];
    try {
      states = await this.either(this.redisCircuits, this.memoryCircuits, (store) => store.states(refs, now));
    } catch {
      return [];
    }
    return refs.map((ref, i) => ({ provider: ref.provider, brand: ref.brandId, mode: modeOf(ref.livemode), value: CIRCUIT_STATE_VALUE[states[i]!] }));
  }
}

export function createOrchestration(options: OrchestrationOptions): OrchestrationService {
  return new OrchestrationService(options);
}

/** The readings /metrics takes, when `orchestration` is this module's (a test's stand-in has none). */
export function readingsOf(orchestration: Orchestration): OrchestrationReadings | null {
  return orchestration instanceof OrchestrationService ? orchestration : null;
}
