// PostgreSQL CPU of each statement complete sends, without pg_stat_statements: records the statements of
// one checkout (capture-sql.mjs), fills a fresh database through the API (initialized and paid
// checkouts, half of them completed), then replays complete's statements on one connection, each
// `--runs` times on checkouts of their own, named or not as the service sent them, and reads the
// backend's CPU time from /proc. Also says how PostgreSQL planned each (pg_prepared_statements: a
// generic plan kept, or a plan made again for every run's values). Run it where PostgreSQL runs (it reads
// /proc/<backend pid>), after `npm run build`:
//
//   node bench/statement-cpu.mjs [--runs 1000]
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { captureStatements } from "./capture-sql.mjs";
import { SERVICE_PATHS, postJson, prepareCompletions } from "./lib/checkout-flow.mjs";
import { createDatabase, dropDatabase, findPostgres } from "./lib/postgres.mjs";
import { startNodeServer } from "./lib/proc.mjs";
import { TOKEN_SECRET, serviceEnv } from "./lib/service-env.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values: args } = parseArgs({ options: { runs: { type: "string", default: "1000" } } });
const RUNS = Number(args.runs);
const serverUrl = await findPostgres();
if (!serverUrl) throw new Error("no PostgreSQL answered (DATABASE_URL or 127.0.0.1:5432)");
const workDir = mkdtempSync(path.join(tmpdir(), "bench-statement-cpu-"));
const name = `bench_statement_cpu_${process.pid}_${Date.now()}`;
const url = await createDatabase(serverUrl, name);
try {
  const capture = await captureStatements({ serverUrl, workDir });
  const step = capture.steps.complete;
  const statements = step.statements.filter((s) => !/^\s*(begin|commit)\b/i.test(s.text));
  const recordedCheckout = JSON.stringify(statements).match(/chk_[A-Za-z0-9_-]{22}/)?.[0];

  // Completed orders to read past, and one open checkout per replayed run.
  const service = await startNodeServer({ script: path.join(ROOT, "dist/main.js"), env: { ...serviceEnv({ url, dataDir: workDir }), WORKERS: "off" }, logFile: path.join(workDir, "service.log") });
  let open;
  try {
    const done = await prepareCompletions({ baseUrl: service.baseUrl, paths: SERVICE_PATHS, secret: TOKEN_SECRET, count: RUNS });
    for (const body of done) await postJson(service.baseUrl, SERVICE_PATHS.complete, body);
    open = await prepareCompletions({ baseUrl: service.baseUrl, paths: SERVICE_PATHS, secret: TOKEN_SECRET, count: RUNS });
  } finally {
    await service.stop();
  }

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows: [{ pid }] } = await client.query("select pg_backend_pid() as pid");
  const cpuMs = () => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  const checkoutIds = new Map((await client.query("select order_id, id from checkouts")).rows.map((r) => [r.order_id, r.id]));
  // The recorded values of the request, re-pointed at each open checkout; generated ids made fresh.
  const valuesFor = (body) => (value) => {
    if (typeof value !== "string") return value;
    let out = value.split(step.request.orderId).join(body.orderId).split(step.request.transactionId).join(body.transactionId);
    if (recordedCheckout) out = out.split(recordedCheckout).join(checkoutIds.get(body.orderId));
    return out.replace(/"(ord|oli|evt|com)_[A-Za-z0-9_-]{22}"/g, (_, prefix) => `"${prefix}_${randomBytes(16).toString("base64url").slice(0, 22)}"`);
  };
  const rows = [];
  for (const [i, statement] of statements.entries()) {
    const before = cpuMs();
    // Named as the service sent it (a prepared statement), or unnamed (parsed and planned every run).
    const named = statement.name ? { name: `s${i}` } : {};
    for (const body of open) await client.query({ ...named, text: statement.text, values: statement.params.map(valuesFor(body)) });
    const ms = cpuMs() - before;
    const { rows: [plans] } = await client.query("select generic_plans, custom_plans from pg_prepared_statements where name = $1", [`s${i}`]);
    rows.push({
      statement: statement.text.replace(/\s+/g, " ").trim().slice(0, 60),
      "backend CPU ms per run": +(ms / RUNS).toFixed(3),
      plans: plans ? `${plans.generic_plans} generic, ${plans.custom_plans} custom` : "unnamed: every run",
    });
  }
  const before = cpuMs();
  for (let i = 0; i < RUNS; i++) await client.query({ name: "one", text: "select 1" });
  rows.push({ statement: "select 1 (a round trip)", "backend CPU ms per run": +((cpuMs() - before) / RUNS).toFixed(3) });
  await client.end();
  console.log(`complete's statements, ${RUNS} runs each on one connection (CPU time in 10-ms ticks: ±${(10 / RUNS).toFixed(3)} ms per run)`);
  console.table(rows);
} finally {
  await dropDatabase(serverUrl, name);
  rmSync(workDir, { recursive: true, force: true });
}
