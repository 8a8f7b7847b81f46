// Webhook delivery throughput: outbox rows -> signed deliveries -> a local receiver, with one service
// process and with two on one PostgreSQL database (and one on PGlite). Writes its figures into the
// "Benchmark" section of docs/webhooks.md.
//
//   node bench/webhooks.mjs                 20 000 events on PostgreSQL, 5 000 on PGlite
//   node bench/webhooks.mjs --events 5000 --no-build --engines postgres
//
// Each run: a fresh database, the service started (dist/main.js), an owner and one `*` endpoint created
// over HTTP, N `payment.succeeded` outbox rows inserted in one statement (as business transactions
// write them), and the time from the receiver's first to its last request. The receiver runs in this
// process and answers 200 at once; it also checks that no webhook-id arrives twice.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { PGlite } from "@electric-sql/pglite";
import { startNodeServer } from "./lib/proc.mjs";
import { createDatabase, dropDatabase, findPostgres } from "./lib/postgres.mjs";
import { serviceEnv } from "./lib/service-env.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);
const { values: args } = parseArgs({
  options: {
    events: { type: "string" },
    "pglite-events": { type: "string" },
    engines: { type: "string", default: "postgres,pglite" },
    "no-build": { type: "boolean", default: false },
  },
});
const EVENTS = Number(args.events ?? 20_000);
const PGLITE_EVENTS = Number(args["pglite-events"] ?? 5_000);
const engines = args.engines.split(",");
const log = (...parts) => console.log(`[bench-webhooks ${new Date().toISOString().slice(11, 19)}]`, ...parts);
const workDir = mkdtempSync(path.join(os.tmpdir(), "bench-webhooks-"));

function startReceiver() {
  const state = { ids: new Set(), duplicates: 0, first: 0, last: 0, count: 0 };
  const server = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      const now = performance.now();
      if (state.count === 0) state.first = now;
      state.last = now;
      state.count++;
      const id = request.headers["webhook-id"];
      if (state.ids.has(id)) state.duplicates++;
      state.ids.add(id);
      response.writeHead(200).end();
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ state, url: `http://127.0.0.1:${server.address().port}/hook`, close: () => server.close() })));
}

async function call(baseUrl, method, url, body, session) {
  const res = await fetch(baseUrl + url, {
    method,
    headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", ...(session ? { cookie: `admin_session=${session}` } : {}) },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res;
}

async function addEndpoint(baseUrl, receiverUrl) {
  const registered = await call(baseUrl, "POST", "/api/auth/register", { name: "Bench", email: `bench-${Date.now()}@example.com`, password: "correct horse battery", orgName: "Bench" });
  const session = registered.headers.getSetCookie().find((c) => c.startsWith("admin_session=")).split(";")[0].slice("admin_session=".length);
  await call(baseUrl, "POST", "/api/admin/webhooks", { url: receiverUrl, events: ["*"] }, session);
}

const INSERT = (n) => `insert into outbox_events (id, brand_id, type, payload, created_at)
  select 'evt_bench_' || g, 'brand_default', 'payment.succeeded', jsonb_build_object('orderId', 'bench-' || g, 'amount', 1500, 'currency', 'USD'), now()
  from generate_series(1, ${n}) g`;

async function waitFor(state, n, timeoutMs = 600_000) {
  const end = Date.now() + timeoutMs;
  while (state.ids.size < n) {
    if (Date.now() > end) throw new Error(`only ${state.ids.size} of ${n} delivered`);
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise((r) => setTimeout(r, 500));
}

const figure = (state, n) => ({ events: n, seconds: (state.last - state.first) / 1000, perSecond: Math.round((n - 1) / ((state.last - state.first) / 1000)), duplicates: state.duplicates, received: state.count });

async function runPostgres(server, processes) {
  const name = `bench_wh_${processes}_${Date.now().toString(36)}`;
  const url = await createDatabase(server, name);
  const receiver = await startReceiver();
  const servers = [];
  try {
    for (let i = 0; i < processes; i++) {
      servers.push(await startNodeServer({ script: "dist/main.js", env: { ...serviceEnv({ url, dataDir: workDir }), ALLOW_PRIVATE_WEBHOOK_URLS: "true" }, logFile: path.join(workDir, `pg-${processes}-${i}.log`), timeoutMs: 60_000 }));
    }
    await addEndpoint(servers[0].baseUrl, receiver.url);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(INSERT(EVENTS));
    await client.end();
    await waitFor(receiver.state, EVENTS);
    return figure(receiver.state, EVENTS);
  } finally {
    for (const s of servers) await s.stop();
    receiver.close();
    await dropDatabase(server, name);
  }
}

async function runPglite() {
  const dataDir = mkdtempSync(path.join(workDir, "pglite-"));
  const receiver = await startReceiver();
  const env = { ...serviceEnv({ dataDir }), ALLOW_PRIVATE_WEBHOOK_URLS: "true" };
  let server = await startNodeServer({ script: "dist/main.js", env, logFile: path.join(workDir, "pglite-1.log") });
  try {
    await addEndpoint(server.baseUrl, receiver.url);
    // PGlite has one connection, held by the service: insert the events while it is stopped.
    await server.stop();
    const db = new PGlite(path.join(dataDir, "pglite"));
    await db.query(INSERT(PGLITE_EVENTS));
    await db.close();
    server = await startNodeServer({ script: "dist/main.js", env, logFile: path.join(workDir, "pglite-2.log") });
    await waitFor(receiver.state, PGLITE_EVENTS);
    return figure(receiver.state, PGLITE_EVENTS);
  } finally {
    await server.stop();
    receiver.close();
  }
}

if (!args["no-build"]) {
  log("npm run build");
  spawnSync("npm", ["run", "build"], { stdio: "inherit" });
}
const results = [];
const pgServer = engines.includes("postgres") ? await findPostgres() : null;
if (engines.includes("postgres") && !pgServer) log("no PostgreSQL answers: PostgreSQL runs skipped");
for (const processes of pgServer ? [1, 2] : []) {
  log(`PostgreSQL, ${processes} process(es), ${EVENTS} events`);
  const r = await runPostgres(pgServer, processes);
  log(r);
  results.push({ engine: "PostgreSQL", processes, ...r });
}
if (engines.includes("pglite")) {
  log(`PGlite, 1 process, ${PGLITE_EVENTS} events`);
  const r = await runPglite();
  log(r);
  results.push({ engine: "PGlite (file)", processes: 1, ...r });
}

const cpu = os.cpus();
const section = [
  "## Benchmark",
  "",
  `Measured ${new Date().toISOString().slice(0, 10)} with \`node bench/webhooks.mjs${process.argv.slice(2).length ? " " + process.argv.slice(2).join(" ") : ""}\` on ${cpu.length} × ${cpu[0]?.model.trim()} (the load receiver runs on the same machine).`,
  "Deliveries per second = events ÷ time from the receiver's first to its last request; every event is one signed",
  "POST to one `*` endpoint (receiver on 127.0.0.1 answering 200).",
  "",
  "| engine | processes | events | seconds | deliveries/s | duplicate sends |",
  "|---|---|---|---|---|---|",
  ...results.map((r) => `| ${r.engine} | ${r.processes} | ${r.events} | ${r.seconds.toFixed(2)} | ${r.perSecond} | ${r.duplicates} |`),
  "",
];
const docPath = "docs/webhooks.md";
const doc = readFileSync(docPath, "utf8");
const start = doc.indexOf("## Benchmark");
const next = start === -1 ? -1 : doc.indexOf("\n## ", start + 3);
const updated = start === -1 ? `${doc.trimEnd()}\n\n${section.join("\n")}` : doc.slice(0, start) + section.join("\n") + (next === -1 ? "" : doc.slice(next + 1));
writeFileSync(docPath, updated);
log(`wrote the Benchmark section of ${docPath}`);
