// The standing-queue rule (issue 35, docs/operations.md "Overload"), fed by hand: connection waits,
// requests admitted and finished, and the end of each interval (the timer's tick in production).
import { describe, expect, it } from "vitest";
import { StandingQueue } from "./standing-queue.js";

const TARGET = 20;

/** One interval: `waits` (ms) end in it, then it closes with `oldestWaitMs` still waiting. */
function interval(queue: StandingQueue, waits: number[], oldestWaitMs = 0): void {
  for (const ms of waits) queue.waited(ms);
  queue.closeInterval(oldestWaitMs);
}

/** `count` new checkouts arrive now: how many are admitted (each stays in flight). */
function arrive(queue: StandingQueue, count: number): number {
  let admitted = 0;
  for (let i = 0; i < count; i++) {
    if (queue.refusesNew()) continue;
    queue.admitted();
    admitted++;
  }
  return admitted;
}

function finish(queue: StandingQueue, count: number): void {
  for (let i = 0; i < count; i++) queue.finished();
}

describe("when the queue stands", () => {
  it("a busy moment whose queue drains (one short wait in the interval) is not a standing queue", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    interval(queue, [80, 120, 3, 90]);
    expect(queue.standing).toBe(false);
    expect(queue.standingWaitMs).toBe(3);
    interval(queue, [25, 40, 31]);
    expect(queue.standing).toBe(true);
    expect(queue.standingWaitMs).toBe(25);
  });

  it("an interval in which no connection was handed out is judged by the oldest wait in progress: the worst queue, not an empty one", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    interval(queue, [], 150);
    expect(queue.standing).toBe(true);
    expect(queue.standingWaitMs).toBe(150);
    // Nothing ended and nobody waits: idle.
    interval(queue, [], 0);
    expect(queue.standing).toBe(false);
  });

  it("a target of 0 turns the rule off: the queue never stands and nothing is refused", () => {
    const queue = new StandingQueue({ targetMs: 0 });
    arrive(queue, 10);
    interval(queue, [500]);
    interval(queue, [500]);
    expect(queue.standing).toBe(false);
    expect(arrive(queue, 100)).toBe(100);
    expect(queue.standingWaitMs).toBe(500);
  });
});

describe("the in-flight ceiling", () => {
  it("a closed loop far beyond the pool is never refused, however long its queue stands", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    // 200 clients arrive at once: no one has waited yet when they do.
    expect(arrive(queue, 200)).toBe(200);
    interval(queue, [0, 0, 5]);
    for (let i = 0; i < 100; i++) {
      // Each answer brings the client's next request at once: 60 answered and replaced per interval.
      for (let j = 0; j < 60; j++) {
        finish(queue, 1);
        expect(arrive(queue, 1)).toBe(1);
      }
      interval(queue, [180, 240, 260]);
      expect(queue.standing).toBe(true);
    }
    expect(queue.inFlight).toBe(200);
  });

  it("an open-loop overload is held at the level it was kept up with: what would grow the work in flight is refused, what replaces a finished request is admitted", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    // Kept up with: 20 in flight, short waits.
    arrive(queue, 20);
    interval(queue, [0, 4, 12]);
    // Arrivals beyond capacity: 30 more per interval than finish. The first standing interval has
    // grown the work already; its level before (20) sets the ceiling: 20 × 2 + 2 = 42.
    finish(queue, 10);
    arrive(queue, 40);
    interval(queue, [25, 30, 44]);
    expect(queue.standing).toBe(true);
    expect(queue.ceiling).toBe(42);
    expect(queue.inFlight).toBe(50);
    // Above the ceiling every new checkout is refused until finished requests bring it below.
    expect(arrive(queue, 60)).toBe(0);
    finish(queue, 10);
    expect(arrive(queue, 60)).toBe(2);
    expect(queue.inFlight).toBe(42);
    // From then on, one admitted for each finished: the work no longer grows.
    finish(queue, 15);
    expect(arrive(queue, 60)).toBe(15);
    expect(queue.inFlight).toBe(42);
  });

  it("while it refuses and the queue still stands, the ceiling comes down (5 % an interval); once the queue is gone, it goes up and is lifted after ten intervals", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    arrive(queue, 20);
    interval(queue, [0]);
    arrive(queue, 30);
    interval(queue, [30]);
    expect(queue.ceiling).toBe(42);
    expect(arrive(queue, 10)).toBe(0); // refused: 50 in flight
    interval(queue, [40]);
    expect(queue.ceiling).toBe(39);
    // Standing, nothing refused: held.
    interval(queue, [40]);
    expect(queue.ceiling).toBe(39);
    finish(queue, 50);
    interval(queue, [0]);
    expect(queue.ceiling).toBe(42);
    for (let i = 0; i < 8; i++) interval(queue, [0]);
    expect(queue.ceiling).toBeGreaterThan(42);
    expect(queue.ceiling).not.toBe(Infinity);
    interval(queue, [0]);
    expect(queue.ceiling).toBe(Infinity);
  });

  it("a closed loop whose requests in flight swing by half after its queue stood (a slow load generator) is not refused", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    // 50 clients, of which 28 to 46 have a request out at any moment.
    arrive(queue, 28);
    interval(queue, [0, 2]);
    for (let i = 0; i < 50; i++) {
      const out = 28 + ((i * 7) % 19);
      if (queue.inFlight > out) finish(queue, queue.inFlight - out);
      const coming = out - queue.inFlight;
      expect(arrive(queue, coming)).toBe(coming);
      interval(queue, [35, 60]);
    }
    expect(queue.standing).toBe(true);
  });

  it("refused clients that come straight back (more refusals in an interval than requests in flight, while requests are answered) raise the ceiling: refusing them sheds nothing", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    // A closed loop of 100 that ramped up slowly, its queue standing before all had arrived: the
    // ceiling was set at 20 × 2 + 2 = 42 with 60 in flight.
    arrive(queue, 20);
    interval(queue, [0]);
    arrive(queue, 40);
    interval(queue, [30]);
    expect(queue.ceiling).toBe(42);
    let intervals = 0;
    while (queue.ceiling < 100 && intervals < 10) {
      // Ten answered an interval; every client not in flight tries again every 5 ms.
      finish(queue, 10);
      for (let retry = 0; retry < 20; retry++) arrive(queue, 100 - queue.inFlight);
      interval(queue, [60]);
      intervals++;
    }
    // 25 % above what is in flight each such interval: the whole loop is in within a few.
    expect(intervals).toBeLessThanOrEqual(6);
    arrive(queue, 100 - queue.inFlight);
    expect(queue.inFlight).toBe(100);
    finish(queue, 1);
    expect(queue.refusesNew()).toBe(false);
  });

  it("in a stall (nothing answered), a burst of new checkouts meets the ceiling however many are refused", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    arrive(queue, 10);
    interval(queue, [0]);
    interval(queue, [], 150);
    expect(queue.ceiling).toBe(22);
    expect(arrive(queue, 40)).toBe(12);
    interval(queue, [], 250);
    expect(queue.ceiling).toBe(20);
    expect(arrive(queue, 40)).toBe(0);
  });
});
