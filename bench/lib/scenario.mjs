// Repeats of a measured autocannon run, summarised by their medians. Shared by the single-server legs
// (bench/run.mjs) and the one-vs-two-instances leg (bench/cluster.mjs).
import { measuredRun } from "./load.mjs";

export const log = (...parts) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...parts);

export const median = (list) => {
  const sorted = list.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b);
  if (!sorted.length) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

export function medians(runs) {
  const out = {};
  for (const key of Object.keys(runs[0])) if (typeof runs[0][key] === "number" || runs[0][key] === null) out[key] = median(runs.map((r) => r[key]));
  // Failures are summed, not medianed: one failing repeat must show.
  for (const key of ["non2xx", "errors", "timeouts", "overrun"]) out[key] = runs.reduce((a, r) => a + r[key], 0);
  return out;
}

/**
 * Repeats of warm-up + measured run. `load(requests, durationS)` returns the fire options of one run
 * (see load.mjs): a pool of request bodies big enough for `requests`, or a fixed GET. Pools are sized
 * from the rate seen so far: the warm-up tells the first measured run how many requests 10 s need.
 */
export async function scenario(name, { options, pids, load, firstGuess = 1000 }) {
  const runs = [];
  let rate = firstGuess;
  for (let repeat = 1; repeat <= options.repeats; repeat++) {
    const common = { connections: options.connections, pids };
    const warmRequests = Math.max(options.connections, Math.ceil(rate * options.warmupS));
    const warm = await measuredRun({ ...common, ...(await load(warmRequests, options.warmupS)), durationS: options.warmupS, capS: options.warmupS * 4 });
    if (repeat === 1) rate = warm.rps;
    const requests = Math.max(options.connections, Math.ceil(rate * options.durationS * 1.2));
    const run = await measuredRun({ ...common, ...(await load(requests, options.durationS)), durationS: options.durationS, capS: options.durationS * 3 });
    rate = run.rps;
    runs.push(run);
    log(`${name} #${repeat}: ${describeRun(run)}`);
  }
  return { name, runs, median: medians(runs) };
}

export function describeRun(run) {
  const flows = run.flows === undefined ? "" : `, ${run.flowsPerS.toFixed(0)} flows/s (flow p99 ${run.flowP99?.toFixed(0)} ms, ${run.failedFlows} failed${run.failedFlows ? `: ${run.failedAt}` : ""})`;
  return `${run.rps.toFixed(0)} req/s${flows}, p50 ${run.p50} ms, p99 ${run.p99} ms, ${run.durationS.toFixed(1)} s, non-2xx ${run.non2xx}, errors ${run.errors}, server ${run.serverCpuMsPerReq?.toFixed(3)} ms/req, others ${run.othersCorePct.toFixed(0)}% of a core`;
}

/** Runs `body` for a scenario and keeps its failure as the scenario's result instead of aborting. */
export async function attempt(name, body) {
  try {
    return await body();
  } catch (error) {
    log(`${name}: not measured: ${error.message.split("\n")[0]}`);
    return { name, skipped: error.message.split("\n").slice(0, 6).join(" ").slice(0, 400) };
  }
}

/** A load of pre-built JSON bodies, one per request (never replayed). */
export const bodiesLoad = ({ urls, method = "POST", path, prepare }) => async (requests) => ({
  urls,
  method,
  path,
  bodies: (await prepare(requests)).map((body) => JSON.stringify(body)),
});
