// The overload leg of `npm run bench` (issues 20 and 35): one instance on PostgreSQL; its capacity
// measured first (whole buyer flows, closed loop, 50 connections), then buyers arriving open-loop at
// 0.8×, 1.5× and 2× that capacity. Reports per rate: goodput (whole flows completed per second, against
// capacity), the share of requests refused with 503 OVERLOADED and how fast they were refused, the p99
// of admitted requests, and refusals after the first step (a started buyer refused: should be none).
// Then closed loops of 50, 100 and 200 connections (bounded loads: nothing may be refused), each
// against a fresh service with admission on (as configured) and off, alternating which goes first;
// refusals are read from the service's /metrics, the load average is kept beside each run.
//
//   [REDIS_URL=redis://…] node bench/overload.mjs [--quick] [--duration S] [--factors 0.8,1.5,2] [--closed 50,100,200|none]
//   (after `npm run build`; run.mjs calls benchOverload)
import http from "node:http";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ADMISSION_OFF, admissionCounters, admissionDelta } from "./lib/admission.mjs";
import { fireFlows, prepareFlows, runFlow } from "./lib/flow.mjs";
import { measuredRun } from "./lib/load.mjs";
import { createDatabase, dropDatabase, findPostgres } from "./lib/postgres.mjs";
import { postgresPids, startNodeServer } from "./lib/proc.mjs";
import { log } from "./lib/scenario.mjs";
import { TOKEN_SECRET, serviceEnv } from "./lib/service-env.mjs";

// 0.8×: below capacity admission must refuse nothing; 1.5× and 2×: the overload.
export const OVERLOAD_FACTORS = [0.8, 1.5, 2];
// The targets for the leg.
export const OVERLOAD_TARGET = { goodputShare: 0.9, admittedP99: 250, refusedP99: 50 };
// Issue 35: closed loops of these sizes are refused nothing, request p99 within 1.2× of admission off.
export const CLOSED_LOOPS = [50, 100, 200];
export const CLOSED_LOOP_TARGET = { p99VsOff: 1.2 };

const percentile = (sorted, q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);

/** Buyers arriving every 1/rate s for `durationS`, each running the five steps; answers classified. */
async function openLoop({ url, rate, durationS, secret }) {
  const count = Math.ceil(rate * durationS);
  const pool = await prepareFlows({ secret, count });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const admittedMs = [];
  const refusedMs = [];
  let refusedLater = 0;
  let failed = 0;
  let flows = 0;
  const started = performance.now();
  const running = [];
  await new Promise((resolve) => {
    let next = 0;
    const tick = setInterval(() => {
      const due = Math.min(count, Math.floor(((performance.now() - started) / 1000) * rate) + 1);
      for (; next < due; next++) {
        running.push(
          runFlow(agent, url, pool[next], (step, answer) => {
            if (answer.status === 503 && answer.body.includes('"OVERLOADED"')) {
              refusedMs.push(answer.ms);
              if (step !== "initialize") refusedLater++;
            } else {
              admittedMs.push(answer.ms);
              if (answer.status !== 200) failed++;
            }
          }).then((done) => void (done && flows++)),
        );
      }
      if (next >= count) {
        clearInterval(tick);
        resolve();
      }
    }, 2);
  });
  await Promise.all(running);
  const elapsedS = (performance.now() - started) / 1000;
  agent.destroy();
  admittedMs.sort((a, b) => a - b);
  refusedMs.sort((a, b) => a - b);
  const requests = admittedMs.length + refusedMs.length;
  return {
    offeredFlowsPerS: rate,
    goodputFlowsPerS: flows / elapsedS,
    requests,
    refusedShare: requests ? refusedMs.length / requests : 0,
    refusedP99: percentile(refusedMs, 0.99),
    refusedLater,
    admittedP50: percentile(admittedMs, 0.5),
    admittedP99: percentile(admittedMs, 0.99),
    failedAdmitted: failed,
  };
}

/** The service on a fresh database; `env` added to the usual environment. `stop()` also drops the database. */
async function startService(postgresUrl, env = {}) {
  const name = `bench_overload_${Date.now()}`;
  const url = await createDatabase(postgresUrl, name);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "bench-overload-"));
  // REDIS_URL set: the service counts its rate limits there, as in production (issue 35 measured so).
  const redis = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
  const service = await startNodeServer({ script: "dist/main.js", env: { ...serviceEnv({ url, dataDir }), ...redis, ...env }, logFile: path.join(dataDir, "service.log") });
  return {
    service,
    pids: () => ({ server: [service.pid], postgres: postgresPids(name) }),
    async stop() {
      await service.stop();
      await dropDatabase(postgresUrl, name);
    },
  };
}

/** One closed loop of `connections` buyers flowing back to back, warmed up first, with admission on or off. */
async function closedLoop({ postgresUrl, connections, admission, size }) {
  const { service, pids, stop } = await startService(postgresUrl, admission === "off" ? ADMISSION_OFF : {});
  try {
    const loadBefore = os.loadavg()[0];
    const flows = (count) => prepareFlows({ secret: TOKEN_SECRET, count });
    await measuredRun({ pids, connections, urls: [service.baseUrl], fire: fireFlows, pool: await flows(Math.max(Math.ceil(size / 4), connections * 2)) });
    const pool = await flows(Math.max(size, connections * 5));
    const before = await admissionCounters(service.baseUrl);
    const run = await measuredRun({ pids, connections, urls: [service.baseUrl], fire: fireFlows, pool });
    const counters = admissionDelta(before, await admissionCounters(service.baseUrl));
    return { connections, admission, flowsPerS: run.flowsPerS, p50: run.p50, p99: run.p99, ...counters, failedAt: run.failedAt, loadAverage: [loadBefore, os.loadavg()[0]] };
  } finally {
    await stop();
  }
}

/** Each closed loop with admission on and off, alternating which goes first; p99VsOff added to the "on" runs. */
export async function benchClosedLoops({ postgresUrl, counts = CLOSED_LOOPS, size }) {
  const runs = [];
  for (const [index, connections] of counts.entries()) {
    const order = index % 2 === 0 ? ["on", "off"] : ["off", "on"];
    const pair = {};
    for (const admission of order) {
      pair[admission] = await closedLoop({ postgresUrl, connections, admission, size });
      log(`closed loop ${connections}, admission ${admission}: ${describeClosedLoop(pair[admission])}`);
    }
    pair.on.p99VsOff = pair.off.p99 ? pair.on.p99 / pair.off.p99 : null;
    runs.push(...order.map((admission) => pair[admission]));
  }
  return runs;
}

export function describeClosedLoop(r) {
  return `${r.flowsPerS.toFixed(0)} flows/s, request p50 ${r.p50} ms, p99 ${r.p99} ms, refused ${r.refusedNew} new / ${r.refusedStarted} started, queue stood ${r.standingIntervals} intervals, failed steps ${r.failedAt}, load average ${r.loadAverage.map((v) => v.toFixed(1)).join(" → ")}`;
}

/** The leg: capacity, then each factor of it, then the closed loops. Returns { capacityFlowsPerS, rates: [...], closedLoops: [...] }. */
export async function benchOverload({ postgresUrl, options }) {
  const { service, pids, stop } = await startService(postgresUrl);
  let result;
  try {
    const flows = (count) => prepareFlows({ secret: TOKEN_SECRET, count });
    const size = options.quick ? 300 : 2000;
    await measuredRun({ pids, connections: 50, urls: [service.baseUrl], fire: fireFlows, pool: await flows(Math.ceil(size / 4)) });
    const capacity = await measuredRun({ pids, connections: 50, urls: [service.baseUrl], fire: fireFlows, pool: await flows(size) });
    const capacityFlowsPerS = capacity.flowsPerS;
    log(`overload: capacity ${capacityFlowsPerS.toFixed(0)} flows/s (closed loop, 50 connections, request p99 ${capacity.p99} ms, failed steps ${capacity.failedAt})`);
    const rates = [];
    for (const factor of options.factors ?? OVERLOAD_FACTORS) {
      const run = await openLoop({ url: service.baseUrl, rate: capacityFlowsPerS * factor, durationS: options.durationS, secret: TOKEN_SECRET });
      rates.push({ factor, ...run, goodputShare: run.goodputFlowsPerS / capacityFlowsPerS });
      log(`overload ${factor}×: ${describeOverload(rates.at(-1))}`);
    }
    result = { capacityFlowsPerS, capacityP99: capacity.p99, capacityFailedAt: capacity.failedAt, rates };
  } finally {
    await stop();
  }
  const counts = options.closedLoops ?? CLOSED_LOOPS;
  if (counts.length) result.closedLoops = await benchClosedLoops({ postgresUrl, counts, size: options.quick ? 300 : 2000 });
  return result;
}

export function describeOverload(r) {
  const ms = (v) => (v === null ? "-" : `${v.toFixed(0)} ms`);
  return `offered ${r.offeredFlowsPerS.toFixed(0)} flows/s, goodput ${r.goodputFlowsPerS.toFixed(0)} (${(r.goodputShare * 100).toFixed(0)}% of capacity), refused ${(r.refusedShare * 100).toFixed(1)}% of ${r.requests} requests (p99 ${ms(r.refusedP99)}, ${r.refusedLater} after the first step), admitted p99 ${ms(r.admittedP99)}, ${r.failedAdmitted} admitted failed`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { quick: { type: "boolean", default: false }, duration: { type: "string" }, factors: { type: "string" }, closed: { type: "string" } } });
  const closedLoops = values.closed === "none" ? [] : values.closed?.split(",").map(Number);
  const postgresUrl = await findPostgres();
  if (!postgresUrl) throw new Error("no PostgreSQL answered (DATABASE_URL or 127.0.0.1:5432)");
  const result = await benchOverload({ postgresUrl, options: { quick: values.quick, durationS: Number(values.duration ?? (values.quick ? 3 : 10)), factors: values.factors?.split(",").map(Number), closedLoops } });
  console.log(JSON.stringify(result, null, 2));
}
