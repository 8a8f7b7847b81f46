import type { FastifyInstance } from "fastify";
import type { ServerResponse } from "node:http";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { Counter, Gauge, type Registry } from "prom-client";
import type { AdmissionSettings, AdmissionThresholds } from "../config/admission-settings.js";
import type { PoolQueue } from "../db/client.js";
import { sendLayerError } from "./errors.js";
import { StandingQueue } from "./standing-queue.js";

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
  /** Every wait for a pool connection, in seconds, when it ends (PostgreSQL). */
  onConnectionWait?: (listener: (seconds: number, queued: boolean) => void) => void;
  registry: Registry;
}

/**
 * Decides at arrival, before the body is read, whether a request is served: by the measured queue,
 * not by a rate. A refusal is 503 `{ error: "Service busy", code: "OVERLOADED" }` with Retry-After,
 * answered without touching the database. New checkouts are refused while the pool's queue stands
 * and they would grow the work in flight beyond the level the instance kept up with
 * (src/http/standing-queue.ts); started flows only beyond a much longer standing queue. The decision
 * reads a few fields: no allocation, no clock read.
 */
export class AdmissionControl {
  private readonly loop: IntervalHistogram;
  /** The event loop's median lateness over the last complete window (ms). */
  loopDelayMs = 0;
  private readonly windows: NodeJS.Timeout;
  private readonly intervals: NodeJS.Timeout | null = null;
  private readonly refused: Counter<"class">;
  /** The pool's standing queue (PostgreSQL); null on PGlite, which has no pool. */
  readonly queue: StandingQueue | null = null;
  /** Called once per admitted request when its response ends (finished or aborted). */
  private readonly finished = () => this.queue!.finished();

  constructor(private readonly sources: AdmissionSources) {
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
    this.windows = setInterval(() => this.closeWindow(), LOOP_WINDOW_MS).unref();
    const registers = [sources.registry];
    this.refused = new Counter({ name: "admission_refused_total", help: "Requests refused with 503 OVERLOADED, by admission class (new: new checkouts; started: buyers paying and all else)", labelNames: ["class"], registers });
    for (const cls of ["new", "started"] as const) this.refused.inc({ class: cls }, 0);
    const { poolQueue, onConnectionWait } = sources;
    if (poolQueue && onConnectionWait) {
      const queue = new StandingQueue(sources.settings.queue);
      this.queue = queue;
      // A request that found room in the pool (a connection being opened: slow on a cold instance or a
      // busy host) shows that no queue stands, however long the opening took.
      onConnectionWait((seconds, queued) => queue.waited(queued ? seconds * 1000 : 0));
      const standingIntervals = new Counter({ name: "admission_standing_intervals_total", help: "Intervals (ADMISSION_QUEUE_INTERVAL_MS) at whose end the pool's queue stood: no connection wait in them was shorter than ADMISSION_QUEUE_TARGET_MS", registers });
      this.intervals = setInterval(() => {
        queue.closeInterval(poolQueue().oldestWaitMs);
        if (queue.standing) standingIntervals.inc();
      }, sources.settings.queue.intervalMs).unref();
      new Gauge({ name: "admission_pool_oldest_wait_seconds", help: "How long the oldest wait for a database pool connection still in progress has lasted (0: no one waits)", registers, collect() { this.set(poolQueue().oldestWaitMs / 1000); } });
      new Gauge({ name: "admission_standing_queue_seconds", help: "The shortest wait for a pool connection over the last interval (the oldest wait in progress if none ended): the queue stands while it is above ADMISSION_QUEUE_TARGET_MS", registers, collect() { this.set(queue.standingWaitMs / 1000); } });
      new Gauge({ name: "admission_in_flight_requests", help: "Admitted requests not yet answered (the probes and /metrics not counted)", registers, collect() { this.set(queue.inFlight); } });
      new Gauge({ name: "admission_in_flight_ceiling", help: "While the queue stands, new checkouts are refused at this many requests in flight (+Inf: no ceiling)", registers, collect() { this.set(queue.ceiling); } });
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

  /** Whether a request of this class is refused now. New checkouts are refused whenever started requests are. */
  refuses(cls: AdmissionClass): boolean {
    // The ceiling first: it counts its refusals (a refused client that comes straight back raises it).
    if (cls === "new" && this.queue?.refusesNew()) return true;
    if (this.beyondLimits(this.sources.settings.started)) return true;
    return cls === "new" && this.beyondLimits(this.sources.settings.newCheckout);
  }

  private beyondLimits(limits: AdmissionThresholds): boolean {
    if (limits.poolWaitMs > 0 && this.queue && this.queue.standingWaitMs >= limits.poolWaitMs) return true;
    return limits.loopDelayMs > 0 && this.loopDelayMs >= limits.loopDelayMs;
  }

  /** An admitted request: in flight until its response ends. */
  admit(response: ServerResponse): void {
    if (!this.queue) return;
    this.queue.admitted();
    response.on("close", this.finished);
  }

  countRefusal(cls: AdmissionClass): void {
    this.refused.inc({ class: cls });
  }

  close(): void {
    clearInterval(this.windows);
    if (this.intervals) clearInterval(this.intervals);
    this.loop.disable();
  }
}

/** The first onRequest hook: a refused request goes no further (no session, rate limit or body). */
export function registerAdmission(app: FastifyInstance, control: AdmissionControl, retryAfterSeconds: number): void {
  const retryAfter = String(retryAfterSeconds);
  app.addHook("onRequest", async (request, reply) => {
    const cls = AdmissionControl.classOf(request.method, request.routeOptions.url);
    if (cls === null) return;
    if (!control.refuses(cls)) return control.admit(reply.raw);
    control.countRefusal(cls);
    return sendLayerError(reply.header("retry-after", retryAfter), 503, { error: "Service busy", code: "OVERLOADED" });
  });
  app.addHook("onClose", async () => control.close());
}
