// Where PostgreSQL spends its time in the full checkout+upsell flow: starts the built service on a
// fresh database, runs 500 flows to warm up, then `--flows` flows (50 connections) with
// pg_stat_statements reset in between, and prints the statements by total execution time.
//
//   node bench/flow-statements.mjs [--flows 1500] [--connections 50] [--rate N] [--keep]      (after `npm run build`)
//
// `--connections N`: the closed loop's size, warm-up and measured run (admission's closed-loop check
// runs 50, 100 and 200: docs/operations.md "Overload").
// `--rate N`: the measured flows arrive open-loop at N a second instead of 50 connections back to back.
// The statement table needs pg_stat_statements loaded by the server (a restart after
// `ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`); without it only the run's
// figures are printed.
// `--keep` leaves the database for EXPLAIN (its name is printed). docs/performance.md has a reading.
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { admissionCounters, admissionDelta } from "./lib/admission.mjs";
import { fireFlows, prepareFlows } from "./lib/flow.mjs";
import { measuredRun } from "./lib/load.mjs";
import { createDatabase, dropDatabase, findPostgres } from "./lib/postgres.mjs";
import { postgresPids, startNodeServer } from "./lib/proc.mjs";
import { describeRun } from "./lib/scenario.mjs";
import { resetStatements, statementsAvailable, topStatements } from "./lib/statements.mjs";
import { TOKEN_SECRET, serviceEnv } from "./lib/service-env.mjs";

const { values: args } = parseArgs({ options: { flows: { type: "string", default: "1500" }, rate: { type: "string" }, connections: { type: "string", default: "50" }, keep: { type: "boolean", default: false } } });
const server = await findPostgres();
if (!server) throw new Error("no PostgreSQL answered (DATABASE_URL or 127.0.0.1:5432)");
const admin = new pg.Client({ connectionString: server });
await admin.connect();
const statements = await statementsAvailable(admin);

const name = `flow_statements_${Date.now()}`;
const url = await createDatabase(server, name);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "flow-statements-"));
const redis = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
const service = await startNodeServer({ script: "dist/main.js", env: { ...serviceEnv({ url, dataDir }), ...redis }, logFile: path.join(dataDir, "service.log") });
try {
  const pids = () => ({ server: [service.pid], postgres: postgresPids(name) });
  const flows = (count) => prepareFlows({ secret: TOKEN_SECRET, count });
  const connections = Number(args.connections);
  await measuredRun({ pids, connections, urls: [service.baseUrl], fire: fireFlows, pool: await flows(500) });
  if (statements) await resetStatements(admin);
  const rate = args.rate ? Number(args.rate) : null;
  const pool = await flows(Number(args.flows));
  const admissionBefore = await admissionCounters(service.baseUrl);
  const run = await measuredRun({ pids, connections, rate, urls: [service.baseUrl], fire: fireFlows, pool });
  const admission = admissionDelta(admissionBefore, await admissionCounters(service.baseUrl));
  console.log(`${describeRun(run)}, postgres ${run.postgresCpuMsPerReq?.toFixed(3)} ms/req${rate ? `, flow p50 ${run.flowP50?.toFixed(0)} ms` : ""}`);
  console.log(`admission during the run: ${JSON.stringify(admission)}`);
  if (statements) console.table(await topStatements(admin, name, 30));
} finally {
  await service.stop();
  if (args.keep) console.log(`kept database ${name}`);
  else await dropDatabase(server, name);
  await admin.end();
}
