// Admission rules against closed loops and open-loop overloads, in a discrete-event simulation of one
// instance (docs/operations.md "Overload", issue 35). Deterministic, seconds to run, any machine: it
// shows what each rule refuses, not the service's real latencies (bench/overload.mjs and
// bench/flow-statements.mjs measure those).
//
//   npx tsx scripts/admission-sim.ts [--target 20] [--interval 100] [--rules off,fixed25,codel,ceiling]
//
// The model: a pool of 10 connections (FIFO queue), each request 3 connection checkouts held 4.6 ms on
// average (exponential), an event loop of 0.3 ms of CPU around each: capacity about 150 buyer flows/s
// of 5 requests. A buyer runs initialize, then 4 started steps; a refused initialize ends an open-loop
// buyer, and sends a closed-loop client straight back. Open-loop buyers arrive evenly spaced (as
// bench/overload.mjs sends them) or at random. The rules:
//   off      nothing refused
//   fixed25  new checkouts refused while the oldest wait in progress is 25 ms (before issue 35)
//   codel    new checkouts refused while the queue stands (CoDel alone)
//   ceiling  src/http/standing-queue.ts: while the queue stands, the work in flight may not grow
import { parseArgs } from "node:util";
import { StandingQueue } from "../src/http/standing-queue.js";

type Rule = "off" | "fixed25" | "codel" | "ceiling";
interface Scenario {
  label: string;
  /** Closed loop: this many clients; open loop: buyers at this multiple of capacity (150 flows/s). */
  clients?: number;
  factor?: number;
  /** Closed-loop clients start over this many ms (default: at once) and pause this long between flows. */
  rampMs?: number;
  thinkMs?: number;
  /** Closed loop: the client takes this long on average (exponential) to send each request: a slow load generator. */
  reactMs?: number;
  /** Connections are held this many times longer (a slower host). */
  holdScale?: number;
  /** Open loop: buyers arrive at random (Poisson) instead of evenly spaced. */
  random?: boolean;
  /** The pool's connections take 60 ms to open on first use. */
  coldPool?: boolean;
  /** Connections are held twice as long from 5 s on (a slower database). */
  slowerFrom5s?: boolean;
}

const POOL = 10;
const CHECKOUTS = 3;
const HOLD_MS = 4.6;
const CPU_MS = 0.3;
const CAPACITY_FLOWS = 150;
const DURATION_MS = 10_000;

function simulate(rule: Rule, scenario: Scenario, targetMs: number, intervalMs: number): string {
  // Events: a binary heap ordered by time, then by insertion.
  const heap: { t: number; seq: number; run: () => void }[] = [];
  let seq = 0;
  const before = (a: (typeof heap)[0], b: (typeof heap)[0]) => a.t < b.t || (a.t === b.t && a.seq < b.seq);
  const at = (t: number, run: () => void) => {
    heap.push({ t, seq: seq++, run });
    for (let i = heap.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (before(heap[parent]!, heap[i]!)) break;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  };
  const next = () => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      for (let i = 0; ; ) {
        let m = i;
        for (const c of [2 * i + 1, 2 * i + 2]) if (c < heap.length && before(heap[c]!, heap[m]!)) m = c;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i]!, heap[m]!];
        i = m;
      }
    }
    return top;
  };
  let seed = 42;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const exponential = (mean: number) => -Math.log(1 - random()) * mean;

  let now = 0;
  let loopFree = 0;
  const onLoop = (ms: number, then: () => void) => {
    loopFree = Math.max(now, loopFree) + ms;
    at(loopFree, then);
  };
  let idle = POOL;
  let opened = scenario.coldPool ? 0 : POOL;
  const waiting: { since: number; queued: boolean; then: () => void }[] = [];
  const queue = new StandingQueue({ targetMs });
  // As src/db/client.ts tells admission: an opening, or a wait behind openings, is no queue (0 ms).
  let opening = 0;
  const connect = (then: () => void) => {
    const since = now;
    if (idle === 0) return void waiting.push({ since, queued: opening === 0, then });
    idle--;
    if (opened < POOL) {
      opened++;
      opening++;
      return at(now + 60, () => (opening--, queue.waited(0), then()));
    }
    queue.waited(0);
    then();
  };
  const release = () => {
    const next = waiting.shift();
    if (!next) return void idle++;
    queue.waited(next.queued ? now - next.since : 0);
    next.then();
  };
  const tick = () => {
    const oldest = waiting.find((w) => w.queued);
    queue.closeInterval(oldest ? now - oldest.since : 0);
    at(now + intervalMs, tick);
  };
  at(intervalMs, tick);

  const admittedMs: number[] = [];
  let refused = 0;
  let flows = 0;
  const request = (isNew: boolean, done: (ok: boolean) => void) => {
    const started = now;
    const refuse =
      isNew &&
      ((rule === "fixed25" && waiting.length > 0 && now - waiting[0]!.since >= 25) || (rule === "codel" && queue.standing) || (rule === "ceiling" && queue.refusesNew()));
    if (refuse) {
      refused++;
      return onLoop(0.05, () => done(false));
    }
    queue.admitted();
    let step = 0;
    const run = () => {
      if (step++ === CHECKOUTS) return onLoop(CPU_MS, () => (queue.finished(), admittedMs.push(now - started), done(true)));
      const hold = exponential((scenario.slowerFrom5s && now > 5_000 ? HOLD_MS * 2 : HOLD_MS) * (scenario.holdScale ?? 1));
      onLoop(step === 1 ? CPU_MS : CPU_MS / 2, () => connect(() => at(now + hold, () => (release(), run()))));
    };
    run();
  };
  const buyer = (end: () => void) => {
    let step = 0;
    const send = () =>
      request(step === 0, (ok) => {
        if (!ok) return end();
        if (++step === 5) return (flows++, end());
        go();
      });
    const go = () => (scenario.reactMs ? at(now + exponential(scenario.reactMs), send) : send());
    go();
  };
  if (scenario.clients) {
    for (let c = 0; c < scenario.clients; c++) {
      const loop = (): void => {
        if (now < DURATION_MS) buyer(() => (scenario.thinkMs ? at(now + exponential(scenario.thinkMs), loop) : loop()));
      };
      at(random() * (scenario.rampMs ?? 2), loop);
    }
  } else {
    const gap = 1_000 / (CAPACITY_FLOWS * scenario.factor!);
    for (let t = 0; t < DURATION_MS; t += scenario.random ? exponential(gap) : gap) at(t, () => buyer(() => {}));
  }
  while (heap.length) {
    const event = next();
    now = event.t;
    if (now > DURATION_MS * 3) break;
    event.run();
  }
  admittedMs.sort((a, b) => a - b);
  const p = (q: number) => admittedMs[Math.floor(q * admittedMs.length)]!.toFixed(0);
  return `${scenario.label.padEnd(44)} ${rule.padEnd(8)} ${String(Math.round(flows / (DURATION_MS / 1000))).padStart(4)} flows/s  ${String(refused).padStart(6)} refused  admitted p50 ${p(0.5).padStart(4)} p99 ${p(0.99).padStart(4)} ms`;
}

const { values } = parseArgs({ options: { target: { type: "string", default: "20" }, interval: { type: "string", default: "100" }, rules: { type: "string", default: "off,fixed25,codel,ceiling" } } });
const scenarios: Scenario[] = [
  ...[50, 100, 200].map((clients) => ({ label: `closed loop, ${clients} clients`, clients })),
  ...[200, 400].map((clients) => ({ label: `closed loop, ${clients}, arriving over 0.5 s`, clients, rampMs: 500, thinkMs: 5 })),
  { label: "closed loop, 200, cold pool", clients: 200, coldPool: true },
  ...[30, 50, 100].map((clients) => ({ label: `closed loop, ${clients}, slow host and client`, clients, holdScale: 4, reactMs: 30, rampMs: 300 })),
  { label: "closed loop, 200, database 2x slower from 5 s", clients: 200, slowerFrom5s: true },
  ...[0.8, 1.5, 2, 3].map((factor) => ({ label: `open loop, ${factor}x capacity`, factor })),
  ...[0.8, 0.9, 2].map((factor) => ({ label: `open loop, ${factor}x, random arrivals`, factor, random: true })),
  ...[1.5, 2].map((factor) => ({ label: `open loop, ${factor}x, database 2x slower from 5 s`, factor, slowerFrom5s: true })),
];
for (const rule of values.rules.split(",") as Rule[]) {
  for (const scenario of scenarios) console.log(simulate(rule, scenario, Number(values.target), Number(values.interval)));
}
