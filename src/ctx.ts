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

/** failed: ProviderError (timeout, 5xx) */
export type AttemptResult = "approved" | "declined" | "failed";

/**
 * Provider health and success rates (issue 34, SEAMS-34 §3; src/payments/routing/orchestration.ts
 * re-exports it and builds it). Declared here because ctx.ts sits below payments/ in the layers.
 */
export interface Orchestration {
  /** Providers whose circuit is open for the brand are left out (half-open: one probe at a time may pass). */
  available(brandId: string, livemode: boolean, providers: readonly PaymentProviderType[]): Promise<PaymentProviderType[]>;
  /** After every provider attempt (approved, declined, failed): feeds the circuit and the success rates. Never throws. */
  record(attempt: { brandId: string; livemode: boolean; provider: PaymentProviderType; cardBrand: string | null; currency: string; result: AttemptResult }): Promise<void>;
  /** The counters route() reads (RouteCounters["successRate"] of payments/routing/route.ts; dailyVolume is filled by the caller from approval stats). */
  successRates(brandId: string, livemode: boolean): Promise<(provider: PaymentProviderType, cardBrand: string | null, currency: string) => { rate: number; attempts: number } | null>;
}

/** What the process holds once: built by main.ts (or test support) and given to buildApp. */
export interface Deps {
  config: Config;
  database: Database;
  clock: Clock;
  log: Logger;
  providers: ProviderRegistry;
  /** Provider health and success rates (issue 34): routing and cascades read them, every attempt feeds them. */
  orchestration: Orchestration;
  /** The shared Redis client when REDIS_URL is set (rate limits, login brute-force limits). */
  redis?: Redis | null;
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
