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
    // Kept up with: 40 in flight, short waits.
    arrive(queue, 40);
    interval(queue, [0, 4, 12]);
    // Arrivals beyond capacity: 30 more per interval than finish. The first standing interval has
    // grown it already; its level before (40) sets the ceiling: ceil(40 × 1.25) + 2 = 52.
    finish(queue, 30);
    arrive(queue, 60);
    interval(queue, [25, 30, 44]);
    expect(queue.standing).toBe(true);
    expect(queue.ceiling).toBe(52);
    expect(queue.inFlight).toBe(70);
    // Above the ceiling every new checkout is refused until finished requests bring it below.
    expect(arrive(queue, 60)).toBe(0);
    finish(queue, 30);
    expect(arrive(queue, 60)).toBe(12);
    expect(queue.inFlight).toBe(52);
    // From then on, one admitted for each finished: the queue no longer grows.
    finish(queue, 30);
    expect(arrive(queue, 60)).toBe(30);
    expect(queue.inFlight).toBe(52);
  });

  it("while it refuses and the queue still stands, the ceiling comes down (5 % an interval); once the queue is gone, it goes up and is lifted after ten intervals", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    arrive(queue, 40);
    interval(queue, [0]);
    arrive(queue, 20);
    interval(queue, [30]);
    expect(queue.ceiling).toBe(52);
    arrive(queue, 10); // refused: 60 in flight
    interval(queue, [40]);
    expect(queue.ceiling).toBe(49);
    // Standing, nothing refused: held.
    interval(queue, [40]);
    expect(queue.ceiling).toBe(49);
    finish(queue, 60);
    interval(queue, [0]);
    expect(queue.ceiling).toBe(53);
    for (let i = 0; i < 8; i++) interval(queue, [0]);
    expect(queue.ceiling).toBeGreaterThan(53);
    expect(queue.ceiling).not.toBe(Infinity);
    interval(queue, [0]);
    expect(queue.ceiling).toBe(Infinity);
  });

  it("refused clients that come straight back (more refusals in an interval than requests in flight, while requests are answered) raise the ceiling: refusing them sheds nothing", () => {
    const queue = new StandingQueue({ targetMs: TARGET });
    // A closed loop of 100 that ramped up slowly, its queue standing before all had arrived: the
    // ceiling was set at ceil(20 × 1.25) + 2 = 27 with 40 in flight.
    arrive(queue, 20);
    interval(queue, [0]);
    arrive(queue, 20);
    interval(queue, [30]);
    expect(queue.ceiling).toBe(27);
    const ceilings: number[] = [];
    for (let i = 0; i < 10 && queue.ceiling < 100; i++) {
      // Ten answered an interval; every client not in flight tries again every 5 ms.
      finish(queue, 10);
      for (let retry = 0; retry < 20; retry++) arrive(queue, 100 - queue.inFlight);
      interval(queue, [60]);
      ceilings.push(queue.ceiling);
    }
    // 25 % above what is in flight, an interval: 38, 48, 60, 75, 94, 118.
    expect(ceilings).toEqual([38, 48, 60, 75, 94, 118]);
    // The whole loop gets in, and nothing is refused any more.
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
    expect(queue.ceiling).toBe(15);
    expect(arrive(queue, 40)).toBe(5);
    interval(queue, [], 250);
    expect(queue.ceiling).toBe(14);
    expect(arrive(queue, 40)).toBe(0);
  });
});
