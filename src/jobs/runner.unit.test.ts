// The job runner's scheduling by the injected clock: a pass that reports more work runs again at once,
// an idle job waits `everyMs` of clock time, a failing job backs off (jittered, capped) instead of
// spinning, trigger() joins a pass in progress, and stop() aborts passes and waits for them.
import { getEventListeners } from "node:events";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../lib/clock.js";
import { BACKOFF_MAX_MS, backoffMs, JobRunner, type Job, type JobContext } from "./runner.js";

const log = pino({ level: "silent" });
const runners: JobRunner[] = [];
afterEach(async () => {
  while (runners.length) await runners.pop()!.stop();
});

function runnerWith(clock: ManualClock, ...jobs: Job[]): JobRunner {
  const runner = new JobRunner({ clock, log });
  for (const job of jobs) runner.add(job);
  runners.push(runner);
  return runner;
}

/** Resolves once `check` holds (the loop sleeps at most 1 s of real time between looks at the clock). */
async function until(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 1_300));

describe("backoffMs", () => {
  it("doubles from 1 s, stays between half and all of the ceiling, and never exceeds the cap", () => {
    expect(backoffMs(1, 0)).toBe(500);
    expect(backoffMs(1, 1)).toBe(1_000);
    expect(backoffMs(3, 0)).toBe(2_000);
    expect(backoffMs(3, 1)).toBe(4_000);
    expect(backoffMs(30, 1)).toBe(BACKOFF_MAX_MS);
    expect(backoffMs(30, 0)).toBe(BACKOFF_MAX_MS / 2);
  });
});

describe("JobRunner", () => {
  it("runs a job again at once while it reports more work, then waits everyMs of clock time", async () => {
    const clock = new ManualClock(1_000_000);
    let left = 3;
    let passes = 0;
    const runner = runnerWith(clock, { name: "drain", everyMs: 60_000, run: async () => (passes++, left-- > 0) });
    runner.start();
    await until(() => passes === 4);
    await settle();
    expect(passes).toBe(4);
    clock.advance(60_000);
    await until(() => passes === 5);
  });

  it("backs off a failing job by the clock instead of running it again at once", async () => {
    const clock = new ManualClock(1_000_000);
    let passes = 0;
    const runner = runnerWith(clock, {
      name: "broken",
      everyMs: 10,
      run: async () => {
        passes++;
        throw new Error("database away");
      },
    });
    runner.start();
    await until(() => passes === 1);
    await settle();
    expect(passes).toBe(1);
    // The first back-off is 0.5 to 1 s of clock time.
    clock.advance(1_000);
    await until(() => passes === 2);
    // The second is 1 to 2 s: 0.9 s is not enough.
    clock.advance(900);
    await settle();
    expect(passes).toBe(2);
    clock.advance(1_100);
    await until(() => passes === 3);
  });

  it("trigger() joins a pass in progress instead of starting a second one", async () => {
    const clock = new ManualClock();
    let passes = 0;
    let release!: () => void;
    const runner = runnerWith(clock, { name: "slow", everyMs: 1_000, run: () => (passes++, new Promise<boolean>((resolve) => (release = () => resolve(false)))) });
    const first = runner.trigger("slow");
    const second = runner.trigger("slow");
    expect(second).toBe(first);
    release();
    await first;
    expect(passes).toBe(1);
  });

  it("stop() aborts the signal of a pass in flight and waits for it; no listener is left on the signal", async () => {
    const clock = new ManualClock();
    let seen: JobContext | null = null;
    let ended = false;
    const runner = runnerWith(clock, {
      name: "long",
      everyMs: 1_000,
      run: async (ctx) => {
        seen = ctx;
        await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true }));
        ended = true;
        return false;
      },
    });
    runner.start();
    await until(() => seen !== null);
    await runner.stop();
    expect(ended).toBe(true);
    expect(seen!.signal.aborted).toBe(true);
    expect(getEventListeners(runner.signal, "abort")).toHaveLength(0);
    // A stopped runner starts no pass.
    expect(await runner.trigger("long")).toBe(false);
  });
});
