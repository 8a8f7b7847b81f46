// Issue 35: what tells an overloaded instance from a busy one that keeps up (docs/operations.md
// "Overload"). A closed loop of 200 buyers keeps a queue for the pool at all times, as long as a
// queue an open-loop overload would build; what differs is that the closed loop's work in flight
// stops growing (each answer brings one request), while an overload's grows without end. So:
//  - CoDel's rule says whether the queue stands: no wait for a connection in the last interval was
//    shorter than the target (a burst whose queue drains gives a short wait, and refuses nothing);
//  - while it stands, the work in flight may not grow beyond where it was when the queue began to
//    stand (plus headroom): a new checkout that would grow it is refused, one that replaces a
//    finished request is admitted. A closed loop never meets the ceiling; an overload is held at it.

/**
 * The ceiling's room above the in-flight level at which the queue began to stand. A closed loop's
 * requests in flight swing with its clients' pace (a slow load generator: 28-46 of 50) and may still
 * be arriving when the queue first stands: at 1.25× a closed loop of 50 on the loaded machine was
 * held below its size and refused for good (its refused clients, slow to come back, never outnumber
 * those in flight). An overload may grow this far before the first refusal, then the ceiling comes
 * down: at 2× of capacity, admitted p99 212 ms against 174 ms at 1.25× (scripts/admission-sim.ts).
 */
const HEADROOM = 2;
const HEADROOM_REQUESTS = 2;
/** While the ceiling refuses and the queue still stands, it comes down this much per interval. */
const DECREASE = 0.95;
/** Refused requests come straight back: the ceiling goes up this much per interval (see closeInterval). */
const RAISE_WHEN_RETRIED = 1.25;
/** While the queue does not stand, the ceiling goes up this much per interval (and by one request)... */
const INCREASE = 1.05;
/** ...and after this many intervals in a row without a standing queue, it is lifted. */
const LIFT_AFTER_INTERVALS = 10;

export interface StandingQueueSettings {
  /** A queue stands while no connection wait of a whole interval was shorter than this (ms); 0: never. */
  targetMs: number;
}

/**
 * The pool's standing queue and the in-flight ceiling it sets. Fed with every connection wait
 * (`waited`), every admitted request's start and end, and closed once per interval (`closeInterval`,
 * a timer in production, the test itself in unit tests). Every method is O(1) and allocates nothing.
 */
export class StandingQueue {
  /** Admitted requests not yet answered. */
  inFlight = 0;
  /** Whether the last complete interval's shortest wait was above the target. */
  standing = false;
  /** The last complete interval's shortest wait (ms), the oldest wait in progress if none ended: the queue's standing delay. */
  standingWaitMs = 0;
  /** While the queue stands, new checkouts are refused at this many requests in flight. */
  ceiling = Infinity;

  private shortestWaitMs = Infinity;
  private maxInFlight = 0;
  private previousMaxInFlight = 0;
  private refusedThisInterval = 0;
  private finishedThisInterval = 0;
  private intervalsNotStanding = 0;

  constructor(private readonly settings: StandingQueueSettings) {}

  /** A wait for a pool connection ended (handed a connection, or timed out). */
  waited(ms: number): void {
    if (ms < this.shortestWaitMs) this.shortestWaitMs = ms;
  }

  admitted(): void {
    this.inFlight++;
    if (this.inFlight > this.maxInFlight) this.maxInFlight = this.inFlight;
  }

  finished(): void {
    this.inFlight--;
    this.finishedThisInterval++;
  }

  /** Whether a new checkout arriving now is refused: the queue stands and it would grow the work in flight. */
  refusesNew(): boolean {
    if (!this.standing || this.inFlight < this.ceiling) return false;
    this.refusedThisInterval++;
    return true;
  }

  /**
   * Ends an interval. `oldestWaitMs`: the oldest wait for a connection still in progress (0: nobody
   * waits). An interval in which no wait ended is judged by that oldest wait: every waiter is still
   * waiting, which is the worst queue, not an empty one.
   */
  closeInterval(oldestWaitMs: number): void {
    const shortest = this.shortestWaitMs === Infinity ? oldestWaitMs : this.shortestWaitMs;
    const wasStanding = this.standing;
    this.standingWaitMs = shortest;
    this.standing = this.settings.targetMs > 0 && shortest > this.settings.targetMs;
    if (this.standing) {
      this.intervalsNotStanding = 0;
      // The level it kept up with: the most in flight in the interval before the queue stood (during
      // the first standing interval an overload has already grown it).
      const anchor = Math.ceil(this.previousMaxInFlight * HEADROOM) + HEADROOM_REQUESTS;
      if (!wasStanding) this.ceiling = Math.min(this.ceiling, anchor);
      // More refusals in an interval than requests in flight, while requests are being answered: the
      // refused come straight back (a closed loop that ramped up while the queue already stood), and
      // refusing them sheds nothing: each refusal turns into another request at once. (Not in a
      // stall, when nothing is answered: a burst of new buyers then meets the ceiling as it should.)
      else if (this.refusedThisInterval > this.ceiling && this.finishedThisInterval > 0) this.ceiling = Math.ceil(Math.max(this.ceiling, this.inFlight) * RAISE_WHEN_RETRIED);
      else if (this.refusedThisInterval > 0) this.ceiling = Math.max(HEADROOM_REQUESTS, Math.floor(this.ceiling * DECREASE));
    } else if (++this.intervalsNotStanding >= LIFT_AFTER_INTERVALS) {
      this.ceiling = Infinity;
    } else if (this.ceiling !== Infinity) {
      this.ceiling = Math.ceil(this.ceiling * INCREASE) + 1;
    }
    this.previousMaxInFlight = this.maxInFlight;
    this.maxInFlight = this.inFlight;
    this.shortestWaitMs = Infinity;
    this.refusedThisInterval = 0;
    this.finishedThisInterval = 0;
  }
}
