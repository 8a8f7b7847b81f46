// One measured autocannon run and the CPU the processes under test spent during it.
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { cpuBetween, machineBusyMs, snapshotCpu } from "./proc.mjs";

/**
 * Sends `bodies` (pre-serialized JSON, one per request, never replayed) or, without bodies, the same
 * request for `durationS` seconds. With bodies the run is sized by count (autocannon `amount`), so it
 * ends when the pool is used up instead of replaying a token or a completed checkout.
 */
export async function fire({ urls, method = "GET", path = "/", bodies = null, durationS, connections, capS }) {
  let next = 0;
  let overrun = 0;
  const request = { method, path };
  if (bodies) {
    request.headers = { "content-type": "application/json" };
    request.setupRequest = (req) => {
      // Cannot happen with amount = bodies.length; counted so a change in autocannon would show.
      if (next >= bodies.length) overrun++;
      req.body = bodies[Math.min(next++, bodies.length - 1)];
      return req;
    };
  }
  const instance = autocannon({
    // Several URLs: autocannon spreads the connections over them in turn (a round-robin balancer).
    url: urls,
    connections: bodies ? Math.min(connections, bodies.length) : connections,
    ...(bodies ? { amount: bodies.length } : { duration: durationS }),
    requests: [request],
    timeout: 10,
  });
  const elapsedS = timeToLastAnswer(instance);
  // A pool sized from a poor estimate must not run for minutes.
  const cap = capS ? setTimeout(() => instance.stop(), capS * 1000) : null;
  const result = await instance;
  if (cap) clearTimeout(cap);
  // A run by duration ends on autocannon's own timer, which its duration reports.
  return { result, overrun, elapsedS: bodies ? elapsedS() : null };
}

/**
 * Seconds from now to the last answer of `instance`. autocannon notices a run sized by `amount` has
 * ended only at its next one-second tick, so its own duration is up to a second long: 10% of a 10 s run.
 */
export function timeToLastAnswer(instance) {
  const started = performance.now();
  let last = started;
  instance.on("response", () => {
    last = performance.now();
  });
  return () => (last - started) / 1000;
}

/**
 * One measured run with CPU accounting. `pids()` lists the processes under test by role
 * (`{ server: [pid], postgres: [...] }`); the rest of the machine's busy time, minus this process
 * (the load generator), is reported as `othersCorePct` so a loaded machine shows in the figures.
 * `fireOptions.fire` replaces `fire` (the full-flow scenario); what it returns as `extra` is merged in.
 */
export async function measuredRun({ pids, ...fireOptions }) {
  const roles = pids();
  const before = Object.fromEntries(Object.entries(roles).map(([role, list]) => [role, snapshotCpu(list)]));
  const busyBefore = machineBusyMs();
  const selfBefore = process.cpuUsage();
  // Processes can end during the run (the service replaces each PostgreSQL connection every
  // minute): the last reading of each, taken every 250 ms, counts for those gone by the end.
  const latest = Object.fromEntries(Object.keys(roles).map((role) => [role, new Map(before[role])]));
  const sample = () => {
    for (const [role, list] of Object.entries(pids())) for (const [pid, ms] of snapshotCpu(list)) (latest[role] ??= new Map()).set(pid, ms);
  };
  const sampler = setInterval(sample, 250);
  // BENCH_PROFILE_DIR: the servers profile this run (bench/lib/profile-on-signal.mjs).
  const profile = () => process.env.BENCH_PROFILE_DIR && roles.server?.forEach((pid) => process.kill(pid, "SIGWINCH"));
  profile();
  const { result, overrun, elapsedS, extra = {} } = await (fireOptions.fire ?? fire)(fireOptions).finally(() => {
    clearInterval(sampler);
    profile();
  });
  const self = process.cpuUsage(selfBefore);
  const busy = machineBusyMs() - busyBefore;
  sample();
  const cpu = {};
  for (const [role, readings] of Object.entries(latest)) cpu[role] = cpuBetween(before[role] ?? new Map(), readings);
  const selfMs = (self.user + self.system) / 1000;
  const requests = result.requests.total;
  // CPU shares are over the whole measured window, idle tail included (nothing runs in it).
  const wallMs = result.duration * 1000;
  const durationS = elapsedS || result.duration;
  const perRequest = (ms) => (requests ? ms / requests : null);
  const ourCpu = Object.values(cpu).reduce((a, b) => a + b, 0);
  return {
    requests,
    durationS,
    rps: requests / durationS,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    overrun,
    serverCpuMsPerReq: perRequest(cpu.server ?? 0),
    postgresCpuMsPerReq: cpu.postgres === undefined ? null : perRequest(cpu.postgres),
    serverCorePct: ((cpu.server ?? 0) / wallMs) * 100,
    postgresCorePct: cpu.postgres === undefined ? null : (cpu.postgres / wallMs) * 100,
    loadGeneratorCorePct: (selfMs / wallMs) * 100,
    othersCorePct: (Math.max(0, busy - ourCpu - selfMs) / wallMs) * 100,
    ...Object.fromEntries(Object.entries(cpu).filter(([role]) => !["server", "postgres"].includes(role)).map(([role, ms]) => [`${role}CpuMsPerReq`, perRequest(ms)])),
    ...extra,
  };
}
