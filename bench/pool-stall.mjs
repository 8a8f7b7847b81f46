// Issue 23's pattern, repeated on one instance: warm-up flows, a pause (the next flows' tokens are
// signed meanwhile; at least --pause seconds, longer than the 5-s provider-settings cache), then a
// burst of flows over 50 keep-alive connections. Every 200 ms it records the service's pool (total,
// idle, waiting, longest wait in progress) and event-loop delay (bench/lib/pool-probe.mjs, loaded into
// the service) and pg_stat_activity of the service's database. A stall is a gap of --stall seconds
// (default 4) with requests outstanding and no answer; for each stall or 503 the timeline is printed.
//
//   node bench/pool-stall.mjs [--reps 30] [--warmup 200] [--burst 600] [--pause 6] [--connections 50]
//                             [--env NAME=VALUE …]      (after `npm run build`; REDIS_URL is passed on)
//
// Exit code 1 when any repetition stalled or answered 503. docs/performance.md has a reading.
import http from "node:http";
import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { prepareFlows, runFlow } from "./lib/flow.mjs";
import { createDatabase, dropDatabase, findPostgres } from "./lib/postgres.mjs";
import { sleep, startNodeServer } from "./lib/proc.mjs";
import { TOKEN_SECRET, serviceEnv } from "./lib/service-env.mjs";

const { values: args } = parseArgs({
  options: {
    reps: { type: "string", default: "30" },
    warmup: { type: "string", default: "200" },
    burst: { type: "string", default: "600" },
    pause: { type: "string", default: "6" },
    connections: { type: "string", default: "50" },
    stall: { type: "string", default: "4" },
    env: { type: "string", multiple: true, default: [] },
  },
});
const connections = Number(args.connections);
const stallMs = Number(args.stall) * 1000;
const extraEnv = Object.fromEntries(args.env.map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]));

const server = await findPostgres();
if (!server) throw new Error("no PostgreSQL answered (DATABASE_URL or 127.0.0.1:5432)");
const admin = new pg.Client({ connectionString: server });
await admin.connect();
const name = `pool_stall_${Date.now()}`;
const url = await createDatabase(server, name);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "pool-stall-"));
const probeFile = path.join(dataDir, "pool-probe.jsonl");
const probe = fileURLToPath(new URL("./lib/pool-probe.mjs", import.meta.url));
const redis = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
const service = await startNodeServer({
  script: "dist/main.js",
  nodeArgs: ["--import", probe],
  env: { ...serviceEnv({ url, dataDir }), ...redis, POOL_PROBE_FILE: probeFile, ...extraEnv },
  logFile: path.join(dataDir, "service.log"),
});

// pg_stat_activity of the service's database every 200 ms (this client is on another database).
const activity = [];
let sampling = true;
const sampleActivity = async () => {
  while (sampling) {
    const t = Date.now();
    try {
      const { rows } = await admin.query(
        `select state, wait_event_type as "waitType", wait_event as "wait", left(regexp_replace(query, '\\s+', ' ', 'g'), 70) as query,
                round(extract(epoch from now() - xact_start) * 1000) as "xactMs", round(extract(epoch from now() - state_change) * 1000) as "stateMs"
           from pg_stat_activity where datname = $1 and backend_type = 'client backend'`,
        [name],
      );
      activity.push({ t, rows });
    } catch {
      // the database is being dropped at the end
    }
    await sleep(Math.max(0, 200 - (Date.now() - t)));
  }
};
const sampler = sampleActivity();

/** Flows back to back over `connections` keep-alive connections; every answer with its time. */
async function closedLoop(items) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const answers = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      await runFlow(agent, service.baseUrl, item, (step, answer) => answers.push({ t: Date.now(), step, status: answer.status, ms: answer.ms }));
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
  return { started, answers };
}

/** The longest time without an answer while requests were outstanding (from the burst's start on). */
function longestGap({ started, answers }) {
  let gap = { ms: 0, from: started };
  let last = started;
  for (const { t } of answers) {
    if (t - last > gap.ms) gap = { ms: t - last, from: last };
    last = t;
  }
  return gap;
}

const readProbe = () =>
  readFileSync(probeFile, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));

/** Pool, event loop and pg_stat_activity from `from` to `to`, one line per 200-ms sample. */
function timeline(from, to) {
  const lines = [];
  for (const p of readProbe().filter((s) => s.t >= from && s.t <= to)) {
    const a = activity.reduce((best, s) => (Math.abs(s.t - p.t) < Math.abs((best?.t ?? Infinity) - p.t) ? s : best), null);
    const states = {};
    for (const row of a?.rows ?? []) states[row.state ?? "?"] = (states[row.state ?? "?"] ?? 0) + 1;
    const oldest = (a?.rows ?? []).filter((r) => r.xactMs !== null).sort((x, y) => y.xactMs - x.xactMs)[0];
    const waits = [...new Set((a?.rows ?? []).filter((r) => r.wait && r.state !== "idle").map((r) => `${r.waitType}:${r.wait}`))].join(",");
    lines.push(
      `  +${String(p.t - from).padStart(5)} ms  pool total ${p.total} idle ${p.idle} waiting ${String(p.waiting).padStart(2)} longest wait ${String(p.longestWaitMs).padStart(4)} ms  loop delay ${String(p.loopDelayMaxMs).padStart(3)} ms` +
        `  | pg ${JSON.stringify(states)} waits [${waits}]` +
        (oldest ? ` oldest xact ${oldest.xactMs} ms (${oldest.state}, ${oldest.stateMs} ms in state): ${oldest.query}` : ""),
    );
  }
  return lines.join("\n");
}

const reps = Number(args.reps);
const totals = { stalls: 0, unavailable: 0, failed: 0, answers: 0 };
console.log(`pool-stall: ${reps} × (${args.warmup} warm-up flows, pause ≥ ${args.pause} s, ${args.burst} flows), ${connections} connections; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} on ${os.cpus().length} cores${args.env.length ? `; env ${args.env.join(" ")}` : ""}`);
try {
  for (let rep = 1; rep <= reps; rep++) {
    const warm = await closedLoop(await prepareFlows({ secret: TOKEN_SECRET, count: Number(args.warmup) }));
    const pauseStarted = Date.now();
    const items = await prepareFlows({ secret: TOKEN_SECRET, count: Number(args.burst) });
    await sleep(Number(args.pause) * 1000 - (Date.now() - pauseStarted));
    const burst = await closedLoop(items);
    for (const run of [warm, burst]) {
      const gap = longestGap(run);
      const unavailable = run.answers.filter((a) => a.status === 503);
      const failed = run.answers.filter((a) => a.status !== 200);
      const slowestOk = Math.max(0, ...run.answers.filter((a) => a.status === 200).map((a) => a.ms));
      const stalled = gap.ms >= stallMs;
      totals.stalls += stalled ? 1 : 0;
      totals.unavailable += unavailable.length;
      totals.failed += failed.length;
      totals.answers += run.answers.length;
      const phase = run === warm ? "warm-up" : "burst  ";
      const byStep = {};
      for (const a of failed) byStep[`${a.step} ${a.status}`] = (byStep[`${a.step} ${a.status}`] ?? 0) + 1;
      console.log(
        `rep ${String(rep).padStart(2)} ${phase} ${String(run.answers.length).padStart(5)} answers, longest gap ${String(gap.ms).padStart(5)} ms, slowest 200 ${slowestOk.toFixed(0).padStart(4)} ms, ` +
          `${unavailable.length} × 503${failed.length > unavailable.length ? `, ${failed.length - unavailable.length} other failures` : ""}${failed.length ? ` ${JSON.stringify(byStep)}` : ""}${stalled ? "  STALL" : ""}`,
      );
      if (stalled || unavailable.length) {
        const from = stalled ? gap.from - 600 : unavailable[0].t - unavailable[0].ms - 600;
        await sleep(300); // the probe's next line
        console.log(timeline(from, from + (stalled ? gap.ms : unavailable[0].ms) + 1000));
      }
    }
  }
} finally {
  sampling = false;
  await sampler;
  await service.stop();
  await dropDatabase(server, name);
  await admin.end();
}
console.log(
  `${reps} repetitions: ${totals.stalls} stalls, ${totals.unavailable} × 503, ${totals.failed} failed answers of ${totals.answers}; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
);
process.exitCode = totals.stalls || totals.unavailable ? 1 : 0;
