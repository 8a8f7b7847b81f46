// `npm run bench`: builds, starts the servers under test, runs the autocannon scenarios on PGlite and
// on PostgreSQL, and writes docs/benchmarks.md (raw figures in bench/results/, git-ignored).
//
//   npm run bench                      3 repeats of 3 s warm-up + 10 s measured, medians
//   npm run bench -- --quick           1 repeat of 1 s + 3 s: checks that everything works
//   options: --repeats N --duration S --warmup S --connections N --engines pglite,postgres,cluster,overload,funnels,routing,approvals
//            --no-build --capture FILE (replicas from a recorded capture instead of recording one)
//            --scenarios bare,initialize,complete,createSession,accept,decline (some only: a short
//            look at one endpoint, service and replica; prints its figures and leaves docs/benchmarks.md as it is)
//
// Scenarios: the bare Fastify route (framework ceiling); initialize, complete, upsell create-session,
// accept and decline through the service; and the raw-SQL replica of each (bench/replica-server.mjs).
// `cluster`: one vs two instances on PostgreSQL + Redis (bench/cluster.mjs). `overload`: arrivals at
// 0.8×, 1.5× and 2× the measured capacity, open loop, then closed loops of 50, 100 and 200 connections
// with admission on and off (bench/overload.mjs). `funnels`: the funnel stats
// query over 100 000 seeded funnel sessions (bench/funnel-stats.mjs; ten million with
// `npm run bench:funnels`, docs/benchmarks-funnels.md). `routing`: ms per routing decision with 20
// rules (bench/routing.mjs, alone: `npm run bench:routing`). 
// `approvals`: the approval analytics query at a
// year of 10 000 attempts a day (bench/approval-stats.mjs; its page: `npm run bench:approvals`,
// docs/benchmarks-approvals.md). See docs/benchmarks.md.
import { execSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { captureStatements, describeCapture } from "./capture-sql.mjs";
import {
  REPLICA_PATHS,
  SERVICE_PATHS,
  UPSELL_OFFERS,
  createSessionBodies,
  postJson,
  prepareAnswers,
  prepareCompletions,
  prepareInitializations,
  prepareUpsellOrigins,
} from "./lib/checkout-flow.mjs";
import { attempt, bodiesLoad, log, scenario } from "./lib/scenario.mjs";
import { benchCluster, findRedis } from "./cluster.mjs";
import { benchOverload } from "./overload.mjs";
import { benchFunnelStats } from "./funnel-stats.mjs";
import { benchRouting } from "./routing.mjs";
import { benchApprovalStats } from "./approval-stats.mjs";
import { postgresPids, startNodeServer } from "./lib/proc.mjs";
import { createDatabase, dropDatabase, findPostgres } from "./lib/postgres.mjs";
import { writeReport } from "./lib/report.mjs";
import { TOKEN_SECRET, serviceEnv } from "./lib/service-env.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    repeats: { type: "string" },
    duration: { type: "string" },
    warmup: { type: "string" },
    connections: { type: "string", default: "50" },
    engines: { type: "string", default: "pglite,postgres,cluster,overload,funnels,routing,approvals" },
    "no-build": { type: "boolean", default: false },
    capture: { type: "string" },
    scenarios: { type: "string" },
  },
});
const SCENARIOS = ["bare", "initialize", "complete", "createSession", "accept", "decline"];
/** The scenarios to run: all, or those --scenarios names (a partial run writes no docs/benchmarks.md). */
const wanted = new Set(args.scenarios ? args.scenarios.split(",").map((s) => s.trim()) : SCENARIOS);
for (const name of wanted) if (!SCENARIOS.includes(name)) throw new Error(`--scenarios: unknown scenario ${name} (known: ${SCENARIOS.join(", ")})`);
const options = {
  quick: args.quick,
  repeats: Number(args.repeats ?? (args.quick ? 1 : 3)),
  durationS: Number(args.duration ?? (args.quick ? 3 : 10)),
  warmupS: Number(args.warmup ?? (args.quick ? 1 : 3)),
  connections: Number(args.connections),
  engines: args.engines.split(",").map((e) => e.trim()).filter(Boolean),
};
/** The funnels leg's scale in the default run: enough to exercise the query, small enough to seed in seconds. */
const FUNNEL_SESSIONS = 100_000;
const LEGS = new Set(["cluster", "overload", "funnels", "routing", "approvals"]);
const workDir = mkdtempSync(path.join(os.tmpdir(), "bench-"));
const notes = [];

function build() {
  if (args["no-build"]) return;
  log("npm run build");
  const result = spawnSync("npm", ["run", "build"], { stdio: "inherit" });
  // tsc still emits on type errors; a half-finished branch elsewhere must not stop the benchmark,
  // but the report says the build was not clean.
  if (result.status !== 0) {
    if (!existsSync("dist/main.js")) throw new Error("npm run build failed and dist/main.js is missing");
    notes.push("`npm run build` reported type errors (work in progress elsewhere); dist/ was emitted anyway and measured.");
  }
}

function machine() {
  const sh = (cmd) => {
    try {
      return execSync(cmd, { encoding: "utf8" }).trimEnd();
    } catch {
      return "(unavailable)";
    }
  };
  return {
    date: new Date().toISOString(),
    nproc: sh("nproc"),
    cpu: os.cpus()[0]?.model ?? "unknown",
    free: sh("free -h"),
    node: process.version,
    loadAverage: os.loadavg().map((l) => l.toFixed(2)).join(" "),
    git: sh("git rev-parse --short HEAD"),
    gitDirty: sh("git status --porcelain -- src").split("\n").filter(Boolean).length,
    checkoutFiles: sh("git status --porcelain -- src/checkout src/providers"),
  };
}

async function benchBare() {
  const server = await startNodeServer({ script: "bench/bare-server.mjs", env: {}, logFile: path.join(workDir, "bare.log") });
  try {
    return await scenario("bare", { options, load: async () => ({ urls: server.baseUrl, method: "GET", path: "/" }), pids: () => ({ server: [server.pid] }) });
  } finally {
    await server.stop();
  }
}

/** initialize and complete against one started server (the service, or the replica with its paths). */
async function checkoutScenarios({ label, server, paths, pids }) {
  const results = {};
  // One whole checkout first: if an endpoint is missing or failing, say so instead of measuring 404s.
  const ready = await attempt(`${label} probe`, async () => {
    const [body] = await prepareCompletions({ baseUrl: server.baseUrl, paths, secret: TOKEN_SECRET, count: 1 });
    await postJson(server.baseUrl, paths.complete, body);
    return { ok: true };
  });
  if (!ready.ok) {
    results.initialize = { name: "initialize", skipped: ready.skipped };
    results.complete = { name: "complete", skipped: ready.skipped };
    return results;
  }
  if (wanted.has("initialize")) results.initialize = await attempt(`${label} initialize`, () =>
    scenario(`${label} initialize`, {
      options,
      pids,
      load: bodiesLoad({ urls: server.baseUrl, path: paths.initialize, prepare: (count) => prepareInitializations({ secret: TOKEN_SECRET, count }) }),
    }),
  );
  if (wanted.has("complete")) results.complete = await attempt(`${label} complete`, () =>
    scenario(`${label} complete`, {
      options,
      pids,
      firstGuess: results.initialize?.median?.rps ?? 1000,
      load: bodiesLoad({
        urls: server.baseUrl,
        path: paths.complete,
        prepare: (count) => {
          log(`${label} complete: preparing ${count} initialized and paid checkouts`);
          return prepareCompletions({ baseUrl: server.baseUrl, paths, secret: TOKEN_SECRET, count });
        },
      }),
    }),
  );
  return results;
}

/** Upsell create-session, accept and decline against one started server, after its checkout scenarios. */
async function upsellScenarios({ label, server, paths, pids }) {
  const results = {};
  if (!["createSession", "accept", "decline"].some((step) => wanted.has(step))) return results;
  const origins = await attempt(`${label} upsell origins`, async () => {
    log(`${label} upsell: completing 40 checkouts for the sessions`);
    return { list: await prepareUpsellOrigins({ baseUrl: server.baseUrl, paths, secret: TOKEN_SECRET, count: 40 }) };
  });
  if (!origins.list) {
    for (const step of ["createSession", "accept", "decline"]) results[step] = { name: step, skipped: origins.skipped };
    return results;
  }
  if (wanted.has("createSession")) results.createSession = await attempt(`${label} create-session`, () =>
    scenario(`${label} create-session`, {
      options,
      pids,
      load: bodiesLoad({ urls: server.baseUrl, path: paths.createSession, prepare: async (count) => createSessionBodies(origins.list, count) }),
    }),
  );
  for (const step of ["accept", "decline"].filter((name) => wanted.has(name))) {
    results[step] = await attempt(`${label} ${step}`, () =>
      scenario(`${label} ${step}`, {
        options,
        pids,
        firstGuess: 500,
        load: bodiesLoad({
          urls: server.baseUrl,
          path: paths[step],
          prepare: (count) => {
            log(`${label} ${step}: preparing ${count} sessions`);
            return prepareAnswers({ baseUrl: server.baseUrl, paths, origins: origins.list, count, offerId: UPSELL_OFFERS[0].id });
          },
        }),
      }),
    );
  }
  return results;
}

async function benchEngine(engine, { postgresUrl, capture }) {
  const dataDir = mkdtempSync(path.join(workDir, `${engine}-`));
  let database = null;
  let url = null;
  if (engine === "postgres") {
    database = `bench_${process.pid}_${Date.now()}`;
    url = await createDatabase(postgresUrl, database);
  }
  const pidsOf = (server) => () => ({ server: [server.pid], ...(database ? { postgres: postgresPids(database) } : {}) });
  const out = { engine, service: {}, replica: {} };
  try {
    log(`${engine}: starting the service`);
    // Admission off: each route is measured at 50 connections, beyond capacity on purpose, against a
    // replica that refuses nothing; the overload and cluster legs measure admission.
    const env = { ...serviceEnv({ url, dataDir }), ADMISSION_QUEUE_TARGET_MS: "0", ADMISSION_NEW_POOL_WAIT_MS: "0", ADMISSION_STARTED_POOL_WAIT_MS: "0" };
    const service = await startNodeServer({ script: "dist/main.js", env, logFile: path.join(dataDir, "service.log") });
    try {
      const run = { label: `${engine} service`, server: service, paths: SERVICE_PATHS, pids: pidsOf(service) };
      out.service = { ...(await checkoutScenarios(run)), ...(await upsellScenarios(run)) };
    } finally {
      await service.stop();
    }
    if (!capture) {
      out.replica = Object.fromEntries(["initialize", "complete", "createSession", "accept", "decline"].map((step) => [step, { name: step, skipped: "no SQL capture" }]));
      return out;
    }
    // After the service has stopped: PGlite's directory has one owner at a time.
    log(`${engine}: starting the raw-SQL replica`);
    const replica = await startNodeServer({
      script: "bench/replica-server.mjs",
      env: { ...(url ? { DATABASE_URL: url } : {}), DATA_DIR: dataDir, CHECKOUT_TOKEN_SECRET: TOKEN_SECRET, REPLICA_CAPTURE: capture.file },
      logFile: path.join(dataDir, "replica.log"),
    });
    try {
      const run = { label: `${engine} replica`, server: replica, paths: REPLICA_PATHS, pids: pidsOf(replica) };
      out.replica = { ...(await checkoutScenarios(run)), ...(await upsellScenarios(run)) };
      const { mismatches } = await (await fetch(`${replica.baseUrl}/replay-check`)).json();
      if (Object.keys(mismatches).length) {
        notes.push(`${engine} replica: some statements returned another row count than recorded (${JSON.stringify(mismatches)}): its figures may not be a faithful ceiling.`);
      }
    } finally {
      await replica.stop();
    }
    return out;
  } finally {
    if (database) await dropDatabase(postgresUrl, database).catch((error) => log(`could not drop ${database}: ${error.message}`));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function recordCapture(postgresUrl) {
  if (args.capture) return { file: path.resolve(args.capture), data: JSON.parse(readFileSync(args.capture, "utf8")), source: args.capture };
  if (!postgresUrl) {
    notes.push("No PostgreSQL: the SQL capture (which reads the pg driver) and so the replicas were skipped.");
    return null;
  }
  try {
    log("recording the SQL of one checkout (bench/capture-sql.mjs)");
    const data = await captureStatements({ serverUrl: postgresUrl, workDir: mkdtempSync(path.join(workDir, "capture-")) });
    const file = path.resolve("bench/results/sql-capture.json");
    writeFileSync(file, JSON.stringify(data, null, 2));
    writeFileSync("bench/results/sql-capture.sql", describeCapture(data));
    return { file, data, source: "recorded in this run" };
  } catch (error) {
    notes.push(`The SQL capture failed, so the replicas were not measured: ${error.message.split("\n")[0]}`);
    log(`capture failed: ${error.message.split("\n")[0]}`);
    return null;
  }
}

/** A partial run's medians, service beside replica. */
function printPartial(results) {
  const fixed = (value, digits) => (typeof value === "number" ? value.toFixed(digits) : "–");
  const rows = [];
  for (const [engine, out] of Object.entries(results.engines)) {
    for (const [step, service] of Object.entries(out.service)) {
      const replica = out.replica[step];
      const [s, r] = [service?.median, replica?.median];
      rows.push({
        engine,
        scenario: step,
        "req/s": fixed(s?.rps, 0),
        "server CPU ms/req": fixed(s?.serverCpuMsPerReq, 3),
        "postgres CPU ms/req": fixed(s?.postgresCpuMsPerReq, 3),
        "replica req/s": fixed(r?.rps, 0),
        "replica postgres CPU ms/req": fixed(r?.postgresCpuMsPerReq, 3),
        "vs replica": s?.rps && r?.rps ? `${((s.rps / r.rps) * 100).toFixed(0)}%` : "–",
        "others % of a core": fixed(s?.othersCorePct, 0),
        skipped: service?.skipped ?? replica?.skipped ?? "",
      });
    }
  }
  console.table(rows);
}

async function main() {
  mkdirSync("bench/results", { recursive: true });
  build();
  const results = { options, machine: machine(), notes, command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}` };
  log(`options: ${JSON.stringify(options)}`);
  const wantsPostgres = options.engines.some((e) => e === "postgres" || LEGS.has(e));
  const postgresUrl = wantsPostgres ? await findPostgres() : null;
  if (wantsPostgres && !postgresUrl) notes.push("No PostgreSQL answered: the PostgreSQL and cluster legs were skipped.");

  if (wanted.has("bare")) results.bare = await attempt("bare", benchBare);
  const capture = await recordCapture(postgresUrl);
  results.capture = capture ? { source: capture.source, provider: capture.data.provider, steps: Object.fromEntries(Object.entries(capture.data.steps).map(([k, s]) => [k, s.statements.map((st) => st.text)])) } : null;
  results.engines = {};
  for (const engine of options.engines.filter((e) => !LEGS.has(e))) {
    if (engine === "postgres" && !postgresUrl) continue;
    results.engines[engine] = await benchEngine(engine, { postgresUrl, capture });
  }
  if (options.engines.includes("cluster") && postgresUrl) {
    const redisUrl = await findRedis();
    if (redisUrl) results.cluster = await benchCluster({ postgresUrl, redisUrl, options, workDir });
    else notes.push("No Redis answered: the one-vs-two-instances leg was skipped.");
  }
  if (options.engines.includes("overload") && postgresUrl) results.overload = await attempt("overload", () => benchOverload({ postgresUrl, options }));
  if (options.engines.includes("funnels") && postgresUrl) {
    results.funnels = await attempt("funnels", () => benchFunnelStats({ sessions: FUNNEL_SESSIONS, durationS: options.durationS, log: (...parts) => log(`funnels: ${parts.join(" ")}`) }));
  }
  if (options.engines.includes("routing")) results.routing = await attempt("routing", () => benchRouting());
  if (options.engines.includes("approvals") && postgresUrl) {
    results.approvals = await attempt("approvals", () => benchApprovalStats({ durationS: options.durationS, log: (...parts) => log(`approvals: ${parts.join(" ")}`) }));
  }
  results.finishedAt = new Date().toISOString();
  const stamp = results.machine.date.replace(/[:.]/g, "-");
  writeFileSync(`bench/results/${stamp}.json`, JSON.stringify(results, null, 2));
  if (args.scenarios) {
    printPartial(results);
    log(`a partial run (--scenarios): docs/benchmarks.md left as it is; figures in bench/results/${stamp}.json`);
    return;
  }
  writeFileSync("bench/results/latest.json", JSON.stringify(results, null, 2));
  writeReport("docs/benchmarks.md", results);
  log(`wrote docs/benchmarks.md and bench/results/${stamp}.json`);
}

try {
  await main();
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
