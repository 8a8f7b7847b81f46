import type { Redis } from "ioredis";
import type { Logger } from "pino";
import type { Config } from "./config/index.js";
import type { Database, Db } from "./db/client.js";
import type { Clock } from "./lib/clock.js";
import type { ProviderRegistry } from "./providers/registry.js";
import type { PaymentProviderType } from "./providers/types.js";

/** Who is acting: resolved by the caller resolvers of src/http/auth.ts, checked inside verbs by its assertRole; audit records name it. */
export interface Actor {
  type: "user" | "salesperson" | "api" | "system" | "anonymous";
  id?: string;
  organizationId?: string;
  brandId?: string;
  role?: string;
  /** An API key's scopes (type `api`), checked by each `/api/v1` verb (merchant-credentials/api-key-caller.ts assertScope). */
  scopes?: readonly string[];
}

/** What one provider attempt ended as (issue 34). failed: ProviderError (timeout, 5xx, unreachable); a decline is not a failure. */
export type AttemptResult = "approved" | "declined" | "failed";

/**
 * Provider health and success rates (SEAMS-34.md §3; src/payments/routing/orchestration.ts implements
 * it and re-exports these types). Declared here, below payments/, so Deps and Ctx can carry it.
 */
export interface Orchestration {
  /** Providers whose circuit is open for the brand are left out (half-open: one probe at a time may pass). */
  available(brandId: string, livemode: boolean, providers: readonly PaymentProviderType[]): Promise<PaymentProviderType[]>;
  /** After every provider attempt (approved, declined, failed): feeds the circuit and the success rates. Never throws. */
  record(attempt: { brandId: string; livemode: boolean; provider: PaymentProviderType; cardBrand: string | null; currency: string; result: AttemptResult }): Promise<void>;
  /** The counters route() reads (success rates, RouteCounters["successRate"]; dailyVolume is filled by the caller from approval stats). */
  successRates(brandId: string, livemode: boolean): Promise<(provider: PaymentProviderType, cardBrand: string | null, currency: string) => { rate: number; attempts: number } | null>;
}

/** What the process holds once: built by main.ts (or test support) and given to buildApp. */
export interface Deps {
  config: Config;
  database: Database;
  clock: Clock;
  log: Logger;
  providers: ProviderRegistry;
  /** The shared Redis client when REDIS_URL is set (rate limits, login brute-force limits, provider health). */
  redis?: Redis | null;
  /** Provider health (circuit breakers) and success rates, shared through Redis when REDIS_URL is set (src/payments/routing/orchestration.ts). */
  orchestration: Orchestration;
}

/**
 * What every verb needs and nothing global. `db` is the client or an open transaction
 * (see withTransaction), so verbs compose and tests can wrap them.
 */
export interface Ctx {
  db: Db;
  clock: Clock;
  log: Logger;
  config: Config;
  providers: ProviderRegistry;
  /** Provider health and success rates (Deps.orchestration). */
  orchestration: Orchestration;
  actor: Actor;
  /** The client's address (rate limits, card-testing defence, audit). */
  clientAddress?: string;
  userAgent?: string;
  requestId?: string;
  /**
   * The request's Idempotency-Key once the HTTP layer reserved it (src/http/idempotency.ts), with the
   * keyed hash of its route, path parameters and body: creating verbs bind it to what they make
   * (src/http/idempotent-effects.ts, CONTRACT §40).
   */
  idempotencyKey?: { key: string; requestHash: string };
}
