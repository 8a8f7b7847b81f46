import type { Logger } from "pino";
import type { Clock } from "../lib/clock.js";

/** What a job's pass gets: time from the clock, never `Date.now()`, and the runner's shutdown signal. */
export interface JobContext {
  clock: Clock;
  log: Logger;
  /**
   * Aborted when the runner stops: a pass ends quickly and leaves what it claimed due again. Long-lived:
   * add at most one listener per pass and remove it when the pass ends (Node warns past 10 listeners).
   */
  signal: AbortSignal;
  /**
   * Counts `count` items of this pass that failed and were left to retry (a mail the SMTP server
   * refused, a refund the provider did not answer): background_job_failures_total{kind="item"}.
   */
  failed(count?: number): void;
}

/** What the runner tells about failures: a pass that threw (`pass`), or items a pass counted (`item`). */
export type JobFailureKind = "pass" | "item";
export interface JobRunnerHooks {
  /** Called with count 0 once per job and kind when the job is added, so each series exists from the start. */
  failed?(job: string, kind: JobFailureKind, count: number): void;
}

/**
 * One kind of background work. A pass claims its own rows with a lease (FOR UPDATE SKIP LOCKED, or an
 * advisory lock for housekeeping), so any number of processes run the same jobs without doing a piece
 * of work twice, and work a dead process had claimed comes back when its lease runs out.
 */
export interface Job {
  readonly name: string;
  /** Clock ms between passes while there is nothing to do. */
  readonly everyMs: number;
  /** One pass. Resolves true when more work may be waiting: the next pass then starts at once. */
  run(ctx: JobContext): Promise<boolean>;
}

/** After a failed pass: 1 s doubling up to 60 s, each drawn between half and all of that ("equal jitter"). */
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_MAX_MS = 60_000;
export function backoffMs(failures: number, random = Math.random()): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1));
  return Math.round(ceiling / 2 + (random * ceiling) / 2);
}

/** Longest real-time sleep between looks at the clock: a test that moves a manual clock is noticed within it. */
const MAX_SLEEP_MS = 1_000;

interface JobState {
  job: Job;
  /** Clock ms at which the next pass is due. */
  nextAt: number;
  failures: number;
  running: Promise<boolean> | null;
}

/**
 * Runs every background job of the process (webhook delivery, mail, housekeeping): one pass of a job at
 * a time, again at once while it reports more work, every `everyMs` of clock time when idle, and after a
 * jittered back-off when a pass fails (database away). Started and stopped by app.ts; tests leave it
 * stopped and call `trigger(name)` (or the job's own method) with a moved clock instead.
 */
export class JobRunner {
  private readonly states = new Map<string, JobState>();
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | null = null;
  private looping = false;

  constructor(
    private readonly deps: { clock: Clock; log: Logger },
    private readonly hooks: JobRunnerHooks = {},
  ) {}

  /** Aborted once by stop(); a runner is not restarted. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  add(job: Job): this {
    if (this.states.has(job.name)) throw new Error(`job ${job.name} is already registered`);
    this.states.set(job.name, { job, nextAt: this.deps.clock.now(), failures: 0, running: null });
    this.hooks.failed?.(job.name, "pass", 0);
    this.hooks.failed?.(job.name, "item", 0);
    return this;
  }

  /**
   * Runs a pass of `name` now, or joins the one in progress (a magic link is mailed at once, not at the
   * next poll). Resolves with the pass's "more" answer, false after a failure (logged) or once stopped.
   */
  trigger(name: string): Promise<boolean> {
    const state = this.states.get(name);
    if (!state) throw new Error(`no job named ${name}`);
    if (this.signal.aborted || this.held) return Promise.resolve(false);
    if (state.running) return state.running;
    const running = this.pass(state).finally(() => (state.running = null));
    state.running = running;
    return running;
  }

  private held = false;
  /** WORKERS=off: no pass runs, not even one a route asks for (a restored copy sends nothing). */
  hold(): void {
    this.held = true;
  }

  /** Starts the loop: every due job gets a pass, and the loop sleeps until the next one is due. */
  start(): void {
    if (this.looping || this.signal.aborted) return;
    this.looping = true;
    this.wake(0);
  }

  /** Stops scheduling, aborts the passes in flight (their work is left due again) and waits for them. */
  async stop(): Promise<void> {
    this.looping = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.controller.abort();
    await Promise.all([...this.states.values()].map((state) => state.running));
  }

  private wake(delayMs: number): void {
    if (!this.looping) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), delayMs);
  }

  private tick(): void {
    this.timer = null;
    const now = this.deps.clock.now();
    let sleep = MAX_SLEEP_MS;
    for (const state of this.states.values()) {
      if (state.running) continue;
      // When the pass ends, look again at once: it may have more work, or another job may have come due.
      if (state.nextAt <= now) void this.trigger(state.job.name).then(() => this.wake(0));
      else sleep = Math.min(sleep, state.nextAt - now);
    }
    this.wake(sleep);
  }

  private async pass(state: JobState): Promise<boolean> {
    const { clock, log } = this.deps;
    try {
      const failed = (count = 1) => this.hooks.failed?.(state.job.name, "item", count);
      const more = await state.job.run({ clock, log, signal: this.signal, failed });
      state.failures = 0;
      state.nextAt = clock.now() + (more ? 0 : state.job.everyMs);
      return more;
    } catch (err) {
      state.failures += 1;
      this.hooks.failed?.(state.job.name, "pass", 1);
      const delay = backoffMs(state.failures);
      state.nextAt = clock.now() + delay;
      log.warn({ err, job: state.job.name, failures: state.failures, retryInMs: delay }, "background job failed; backing off");
      return false;
    }
  }
}
