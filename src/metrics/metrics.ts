import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.js";
import type { Clock } from "../lib/clock.js";
import type { JobFailureKind } from "../jobs/runner.js";
import type { RedisFallback } from "../lib/redis-fallback.js";
import type { OrchestrationReadings } from "../payments/routing/orchestration.js";
import type { BuildInfo } from "./build-info.js";

/** Latency buckets in seconds: the hot routes answer in a few ms, provider calls can take seconds. */
const BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A connection is normally handed out at once; the pool gives up waiting after 5 s. */
const POOL_WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Business facts counted once, cluster-wide, when the webhook worker fans their outbox events out
 * (each event is fanned out by exactly one instance): sum them across instances.
 */
export interface BusinessTally {
  type: string;
  provider: string;
  currency: string;
  /** "true", "false", or "unknown" for events written before livemode existed. */
  livemode: string;
  count: number;
  /** Sum of the events' `amount`, in minor units. */
  amount: number;
}

/**
 * A background job whose work waits in a table, and how to find it (a partial index makes each a
 * short read). app.ts lists them (JOB_BACKLOGS): each job's feature knows its table.
 */
export interface JobBacklog {
  job: string;
  table: string;
  /** SQL condition of the rows still waiting; it must have a `created_at` column for the age. */
  where: string;
}
type Backlog = { job: string; items: number; ageSeconds: number };

/** What a webhook attempt ended as (docs/operations.md "Alerts"). */
export type DeliveryOutcome = "succeeded" | "retrying" | "failed";

type Observer = { observe(value: number): void };

/** Per route (method and pattern): the histogram children by status code, made once each. */
export interface RouteSeries {
  method: string;
  route: string;
  byStatus: Map<number, Observer>;
}

export interface MetricsSources {
  database: Database;
  clock: Clock;
  /** The rate-limit store's Redis guard, when rate limits are counted in Redis. */
  rateLimitRedis?: RedisFallback | null;
  /** checkout_build_info's labels (src/metrics/build-info.ts). */
  build?: BuildInfo;
  /** The jobs whose backlog /metrics reports (background_job_backlog_*). */
  jobBacklogs?: readonly JobBacklog[];
  /** Provider circuits and attempts (checkout_provider_circuit_state, checkout_provider_attempts_total), read at scrape time. */
  orchestration?: OrchestrationReadings | null;
}

/**
 * The process's Prometheus metrics (GET /metrics). One Registry per app, so several apps in one
 * test process do not mix. Per request the cost is one histogram observe on a child made once per
 * (route, status); everything else (outbox, pool, Redis) is read when /metrics is scraped.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<"method" | "route" | "status">;
  private readonly deliveries: Counter<"outcome">;
  private readonly undecryptable: Counter<"table">;
  private readonly orders: Counter<"provider" | "currency" | "kind" | "livemode">;
  private readonly revenue: Counter<"provider" | "currency" | "livemode">;
  private readonly declines: Counter<"provider" | "livemode">;
  private readonly refunds: Counter<"provider" | "currency" | "livemode">;
  private readonly refunded: Counter<"provider" | "currency" | "livemode">;
  private readonly providerErrors: Counter<"provider">;
  private readonly jobFailures: Counter<"name" | "kind">;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    if (sources.build) {
      new Gauge({ name: "checkout_build_info", help: "Always 1: the running build's version (package.json) and commit (BUILD_COMMIT, or unknown)", labelNames: ["version", "commit"], registers }).set(
        { version: sources.build.version, commit: sources.build.commit },
        1,
      );
    }
    // Business counters: fed by the webhook worker's fan-out (business()), so each fact counts once
    // across instances. `livemode="false"`: a demo adapter's charge, no real money.
    this.orders = new Counter({ name: "checkout_orders_total", help: "Orders paid (kind: checkout or upsell) by provider and currency", labelNames: ["provider", "currency", "kind", "livemode"], registers });
    this.revenue = new Counter({ name: "checkout_revenue_minor_units_total", help: "Money of paid orders in minor units (cents) by provider and currency", labelNames: ["provider", "currency", "livemode"], registers });
    this.declines = new Counter({ name: "checkout_payment_declines_total", help: "Declined payments (payment.failed events) by provider", labelNames: ["provider", "livemode"], registers });
    this.refunds = new Counter({ name: "checkout_refunds_total", help: "Refunds that succeeded, by provider and currency", labelNames: ["provider", "currency", "livemode"], registers });
    this.refunded = new Counter({ name: "checkout_refunded_minor_units_total", help: "Money refunded in minor units by provider and currency", labelNames: ["provider", "currency", "livemode"], registers });
    this.providerErrors = new Counter({ name: "checkout_provider_errors_total", help: "Requests answered 502 because a payment or CRM provider failed (timeout, 5xx, unreadable answer), by provider", labelNames: ["provider"], registers });
    this.requests = new Histogram({
      name: "http_request_duration_seconds",
      help: "HTTP requests by method, route pattern and status: latency in seconds (_count is the request count)",
      labelNames: ["method", "route", "status"],
      buckets: BUCKETS,
      registers,
    });
    this.deliveries = new Counter({
      name: "webhook_deliveries_total",
      help: "Webhook send attempts by outcome: succeeded, retrying (failed, another attempt is scheduled), failed (given up)",
      labelNames: ["outcome"],
      registers,
    });
    for (const outcome of ["succeeded", "retrying", "failed"] as const) this.deliveries.inc({ outcome }, 0);
    // Issue 21: a sealed secret whose key is not configured (removed from ENCRYPTION_KEY_PREVIOUS too early).
    this.undecryptable = new Counter({
      name: "checkout_undecryptable_secrets_total",
      help: "Sealed secrets this instance needed and could not open (key not in ENCRYPTION_KEY / ENCRYPTION_KEY_PREVIOUS), by table",
      labelNames: ["table"],
      registers,
    });
    this.undecryptable.inc({ table: "webhook_endpoints" }, 0);
    // Issue 31: 9 134 mails sat unsent behind an unreachable SMTP_URL with nothing to show it. The label
    // is `name`: `job` is Prometheus's own (the scrape job) and would be renamed exported_job.
    this.jobFailures = new Counter({
      name: "background_job_failures_total",
      help: "Background job failures by job name: kind=pass, a pass that failed (database away) and is retried after a back-off; kind=item, one piece of work left to retry (a mail the SMTP server refused, a refund the provider did not answer)",
      labelNames: ["name", "kind"],
      registers,
    });

    const { database, clock, jobBacklogs = [] } = sources;
    // One query for these four gauges, at scrape time (never on a request path). The registry
    // collects metrics concurrently: the gauges share the query in flight.
    let reading: Promise<{ depth: number; ageSeconds: number; pending: number; backlogs: Backlog[] } | null> | null = null;
    // Age against the service's clock (the one that stamped created_at), not the database's.
    const ageOf = (oldest: Date | string | null) => (oldest === null ? 0 : Math.max(0, (clock.now() - new Date(oldest).getTime()) / 1000));
    const backlogColumns = jobBacklogs.map(
      ({ table, where }, i) => `(select count(*) from ${table} where ${where})::int as items_${i}, (select min(created_at) from ${table} where ${where}) as oldest_${i}`,
    ).join(",\n                   ");
    const read = () =>
      (reading ??= (async () => {
        try {
          const result = await database.db.execute(sql`
            select (select count(*) from outbox_events where dispatched_at is null)::int as depth,
                   (select min(created_at) from outbox_events where dispatched_at is null) as oldest,
                   (select count(*) from webhook_deliveries where status = 'pending')::int as pending,
                   ${sql.raw(backlogColumns)}`);
          const row = (result as unknown as { rows: Record<string, unknown>[] }).rows[0] as { depth: number; oldest: Date | string | null; pending: number } & Record<string, unknown>;
          const backlogs = jobBacklogs.map(({ job }, i) => ({ job, items: row[`items_${i}`] as number, ageSeconds: ageOf(row[`oldest_${i}`] as Date | string | null) }));
          return { depth: row.depth, ageSeconds: ageOf(row.oldest), pending: row.pending, backlogs };
        } catch {
          return null;
        } finally {
          reading = null;
        }
      })());
    new Gauge({ name: "database_up", help: "1 when the database answered the scrape's queries, else 0", registers, async collect() { this.set((await read()) ? 1 : 0); } });
    const fromRead = (name: string, help: string, pick: (r: { depth: number; ageSeconds: number; pending: number }) => number) =>
      new Gauge({
        name,
        help,
        registers,
        async collect() {
          const r = await read();
          if (r) this.set(pick(r));
        },
      });
    fromRead("outbox_undispatched_events", "Outbox events not yet fanned out to webhook deliveries", (r) => r.depth);
    fromRead("outbox_oldest_undispatched_age_seconds", "Age of the oldest undispatched outbox event (0 when none)", (r) => r.ageSeconds);
    fromRead("webhook_deliveries_pending", "Webhook deliveries waiting for a (re)try", (r) => r.pending);
    const perJob = (name: string, help: string, pick: (b: Backlog) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["name"],
        registers,
        async collect() {
          const r = await read();
          if (r) for (const backlog of r.backlogs) this.set({ name: backlog.job }, pick(backlog));
        },
      });
    perJob("background_job_backlog_items", "Work waiting for a background job, by job name: mail (unsent mails), receipts (events waiting for their receipt), refund-reconciler (pending refunds)", (b) => b.items);
    perJob("background_job_backlog_oldest_age_seconds", "Age of the oldest work waiting for a background job, by job name (0 when none)", (b) => b.ageSeconds);

    const pool = database.pool;
    if (pool) {
      new Gauge({ name: "db_pool_connections", help: "PostgreSQL pool connections open", registers, collect() { this.set(pool.totalCount); } });
      new Gauge({ name: "db_pool_idle_connections", help: "PostgreSQL pool connections open and idle", registers, collect() { this.set(pool.idleCount); } });
      new Gauge({ name: "db_pool_waiting_requests", help: "Queries waiting for a pool connection", registers, collect() { this.set(pool.waitingCount); } });
      const waits = new Histogram({
        name: "db_pool_wait_seconds",
        help: "Seconds each query or transaction waited for a pool connection, opening one included; a wait that hit the 5-s timeout counts above le=5",
        buckets: POOL_WAIT_BUCKETS,
        registers,
      });
      database.onConnectionWait?.((seconds) => waits.observe(seconds));
    }

    const guard = sources.rateLimitRedis;
    if (guard) {
      new Gauge({
        name: "rate_limit_redis_fallback_active",
        help: "1 while Redis is unreachable and rate limits are counted per process (CONTRACT §24)",
        registers,
        collect() {
          this.set(guard.isDegraded ? 1 : 0);
        },
      });
      let counted = 0;
      new Counter({
        name: "rate_limit_redis_fallbacks_total",
        help: "Requests whose rate-limit count fell back to this process because Redis did not answer",
        registers,
        collect() {
          this.inc(guard.fallbackCount - counted);
          counted = guard.fallbackCount;
        },
      });
    }

    const orchestration = sources.orchestration;
    if (orchestration) {
      // Issue 34 item 5. Per instance: the circuits it has met, read from Redis (shared) at scrape time.
      new Gauge({
        name: "checkout_provider_circuit_state",
        help: "Circuit breaker of a payment provider for a brand and mode (live/test): 0 closed, 1 half-open (a probe may pass), 2 open (skipped by routing and cascades)",
        labelNames: ["provider", "brand", "mode"],
        registers,
        async collect() {
          const readings = await orchestration.circuitStates();
          this.reset();
          for (const r of readings) this.set({ provider: r.provider, brand: r.brand, mode: r.mode }, r.value);
        },
      });
      new Counter({
        name: "checkout_provider_attempts_total",
        help: "Payment provider attempts this instance recorded, by provider, mode (live/test) and result: approved, declined, failed (timeout, 5xx, unreachable)",
        labelNames: ["provider", "mode", "result"],
        registers,
        collect() {
          this.reset();
          for (const t of orchestration.attemptTallies()) this.inc({ provider: t.provider, mode: t.mode, result: t.result }, t.count);
        },
      });
    }
  }

  /** The series of one route; the app keeps it with the route (made once, at registration). */
  route(method: string, route: string): RouteSeries {
    return { method, route, byStatus: new Map() };
  }

  /** One finished request: a Map lookup and an observe. */
  observe(series: RouteSeries, status: number, seconds: number): void {
    let child = series.byStatus.get(status);
    if (!child) {
      child = this.requests.labels(series.method, series.route, String(status));
      series.byStatus.set(status, child);
    }
    child.observe(seconds);
  }

  /** The business events one fan-out dispatched (src/webhooks/store.ts fanOutEvents). */
  business(tallies: BusinessTally[]): void {
    for (const t of tallies) {
      const livemode = t.livemode;
      if (t.type === "order.confirmed" || t.type === "upsell.accepted") {
        this.orders.inc({ provider: t.provider, currency: t.currency, kind: t.type === "order.confirmed" ? "checkout" : "upsell", livemode }, t.count);
        this.revenue.inc({ provider: t.provider, currency: t.currency, livemode }, t.amount);
      } else if (t.type === "payment.failed") {
        this.declines.inc({ provider: t.provider, livemode }, t.count);
      } else if (t.type === "refund.succeeded") {
        this.refunds.inc({ provider: t.provider, currency: t.currency, livemode }, t.count);
        this.refunded.inc({ provider: t.provider, currency: t.currency, livemode }, t.amount);
      }
    }
  }

  /** A request answered 502 because `provider` failed. */
  providerError(provider: string): void {
    this.providerErrors.inc({ provider });
  }

  delivery(outcome: DeliveryOutcome, count = 1): void {
    if (count > 0) this.deliveries.inc({ outcome }, count);
  }

  /** A failed pass or failed items of a background job (src/jobs/runner.ts). */
  jobFailed(job: string, kind: JobFailureKind, count = 1): void {
    this.jobFailures.inc({ name: job, kind }, count);
  }

  /** A sealed value of `table` that no configured key opens. */
  undecryptableSecret(table: string): void {
    this.undecryptable.inc({ table });
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }
}
