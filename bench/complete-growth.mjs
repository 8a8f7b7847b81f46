// Completions on a growing database: starts the built service on a fresh PostgreSQL database, then
// three rounds of "initialize and pay 6 000 checkouts, then complete them" (50 connections), and
// prints each round's figures; with pg_stat_statements loaded, also its top statements. A statement
// that gets slower round after round reads more as tables grow (docs/performance.md, item 5).
//
//   node bench/complete-growth.mjs [--rounds 3] [--per-round 6000]      (after `npm run build`)
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { SERVICE_PATHS, prepareCompletions } from "./lib/checkout-flow.mjs";
import { measuredRun } from "./lib/load.mjs";
import { createDatabase, dropDatabase, findPostgres } from "./lib/postgres.mjs";
import { postgresPids, startNodeServer } from "./lib/proc.mjs";
import { describeRun } from "./lib/scenario.mjs";
import { resetStatements, statementsAvailable, topStatements } from "./lib/statements.mjs";
import { TOKEN_SECRET, serviceEnv } from "./lib/service-env.mjs";

const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "3" }, "per-round": { type: "string", default: "6000" } } });
const server = await findPostgres();
if (!server) throw new Error("no PostgreSQL answered (DATABASE_URL or 127.0.0.1:5432)");
const admin = new pg.Client({ connectionString: server });
await admin.connect();
const statements = await statementsAvailable(admin);

const name = `complete_growth_${Date.now()}`;
const url = await createDatabase(server, name);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "complete-growth-"));
const redis = process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {};
const service = await startNodeServer({ script: "dist/main.js", env: { ...serviceEnv({ url, dataDir }), ...redis }, logFile: path.join(dataDir, "service.log") });
try {
  const pids = () => ({ server: [service.pid], postgres: postgresPids(name) });
  for (let round = 1; round <= Number(args.rounds); round++) {
    const bodies = await prepareCompletions({ baseUrl: service.baseUrl, paths: SERVICE_PATHS, secret: TOKEN_SECRET, count: Number(args["per-round"]) });
    if (statements) await resetStatements(admin);
    const run = await measuredRun({ pids, connections: 50, urls: [service.baseUrl], method: "POST", path: SERVICE_PATHS.complete, bodies: bodies.map((b) => JSON.stringify(b)) });
    console.log(`round ${round}: ${describeRun(run)}, postgres ${run.postgresCpuMsPerReq?.toFixed(3)} ms/req`);
    if (statements) console.table(await topStatements(admin, name, 5));
  }
} finally {
  await service.stop();
  await dropDatabase(server, name);
  await admin.end();
}
