import type { FastifyInstance } from "fastify";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { Counter, Gauge, type Registry } from "prom-client";
import type { AdmissionSettings, AdmissionThresholds } from "../config/admission-settings.js";
import type { PoolQueue } from "../db/client.js";

/**
 * Who is refused first when the service is beyond capacity (issue 20). `new`: a buyer who has not
 * started yet; refusing them costs one page load, and the work they would bring (a whole flow) is what
 * overloads the service. `started`: everything else that may be refused, above all a buyer who is
 * paying (pay, complete, upsell answers and their reads), admitted up to a higher queue so started
 * flows complete.
 */
export type AdmissionClass = "new" | "started";

/** The routes that start a checkout: "METHOD pattern". */
const NEW_CHECKOUT_ROUTES = new Set(["POST /api/checkout/initialize", "POST /api/token/generate", "POST /api/v1/checkouts", "GET /c/:code"]);
/** Never refused: probes and the scraper must see an overloaded instance as it is. */
const NEVER_REFUSED = new Set(["/healthz", "/readyz", "/metrics"]);

/** The loop-delay histogram's sampling interval (ms); each sample is the interval plus the lateness. */
const LOOP_RESOLUTION_MS = 10;
/** Loop delay is the median lateness of the timer's ticks over windows of this length. */
const LOOP_WINDOW_MS = 500;
const MIN_TICKS = 3;

export interface AdmissionSources {
  settings: AdmissionSettings;
  /** The database pool's queue (PostgreSQL); absent on PGlite, which has no pool. */
  poolQueue?: () => PoolQueue;
  registry: Registry;
}

/**
 * Decides at arrival, before the body is read, whether a request is served: by the measured queue
 * (the oldest wait for a pool connection in progress, the event loop's lateness), not by a rate.
 * A refusal is 503 `{ error: "Service busy", code: "OVERLOADED" }` with Retry-After, answered without
 * touching the database. Below the thresholds it costs a Set lookup and two comparisons.
 */
export class AdmissionControl {
  private readonly loop: IntervalHistogram;
  /** The event loop's median lateness over the last complete window (ms). */
  loopDelayMs = 0;
  private readonly windows: NodeJS.Timeout;
  private readonly refused: Counter<"class">;

  constructor(private readonly sources: AdmissionSources) {
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
    this.windows = setInterval(() => this.closeWindow(), LOOP_WINDOW_MS).unref();
    const registers = [sources.registry];
    this.refused = new Counter({ name: "admission_refused_total", help: "Requests refused with 503 OVERLOADED, by admission class (new: new checkouts; started: buyers paying and all else)", labelNames: ["class"], registers });
    for (const cls of ["new", "started"] as const) this.refused.inc({ class: cls }, 0);
    const { poolQueue } = sources;
    if (poolQueue) {
      new Gauge({ name: "admission_pool_oldest_wait_seconds", help: "How long the oldest wait for a database pool connection still in progress has lasted (0: no one waits)", registers, collect() { this.set(poolQueue().oldestWaitMs / 1000); } });
    }
    const self = this;
    new Gauge({ name: "admission_event_loop_delay_seconds", help: "The event loop's median lateness over the last half second, as admission control sees it", registers, collect() { this.set(self.loopDelayMs / 1000); } });
  }

  static classOf(method: string, route: string | undefined): AdmissionClass | null {
    if (route === undefined) return "started";
    if (NEVER_REFUSED.has(route)) return null;
    return NEW_CHECKOUT_ROUTES.has(`${method} ${route}`) ? "new" : "started";
  }

  /** Ends a window: its median lateness is the loop delay until the next one ends. */
  private closeWindow(): void {
    // Too few ticks to judge (a long task filled the window): the window runs on into the next, so
    // one long task (start-up, a big JSON) is one late tick among many, not a busy loop.
    if (this.loop.count < MIN_TICKS) return;
    // The histogram's samples are the timer's intervals: the resolution plus the lateness. The
    // median: a loop that is late on most ticks is busy; one very late tick is not.
    this.loopDelayMs = Math.max(0, this.loop.percentile(50) / 1e6 - LOOP_RESOLUTION_MS);
    this.loop.reset();
  }

  /** Whether a request of this class is refused now. */
  refuses(cls: AdmissionClass): boolean {
    const limits: AdmissionThresholds = cls === "new" ? this.sources.settings.newCheckout : this.sources.settings.started;
    if (limits.poolWaitMs > 0 && this.sources.poolQueue && this.sources.poolQueue().oldestWaitMs >= limits.poolWaitMs) return true;
    return limits.loopDelayMs > 0 && this.loopDelayMs >= limits.loopDelayMs;
  }

  countRefusal(cls: AdmissionClass): void {
    this.refused.inc({ class: cls });
  }

  close(): void {
    clearInterval(this.windows);
    this.loop.disable();
  }
}

/** The first onRequest hook: a refused request goes no further (no session, rate limit or body). */
export function registerAdmission(app: FastifyInstance, control: AdmissionControl, retryAfterSeconds: number): void {
  const retryAfter = String(retryAfterSeconds);
  app.addHook("onRequest", async (request, reply) => {
    const cls = AdmissionControl.classOf(request.method, request.routeOptions.url);
    if (cls === null || !control.refuses(cls)) return;
    control.countRefusal(cls);
    return reply.code(503).header("retry-after", retryAfter).send({ error: "Service busy", code: "OVERLOADED" });
  });
  app.addHook("onClose", async () => control.close());
}
