// `npm run soak`: the long versions of the crash and load tests (not part of `npm test`).
//
//   kill     SIGKILL at each named point (src/lib/fault-points.ts) then a retry on a healthy
//            instance: the original result, one order, one charge, one event. --iterations per point.
//   webhook  SIGKILL after a delivery is claimed, before its send, --iterations times; then a healthy
//            instance must deliver every one (at least once) once the claims' leases run out.
//   load     --minutes of mixed load (token generate, initialize, pay + complete, upsell create +
//            accept, administration reads) at --rate per second over --instances processes: errors,
//            p50/p99 per operation, event-loop delay and heap at the start and the end (leak check).
//
// Needs DATABASE_URL (PostgreSQL; a fresh database is created next to it and dropped), REDIS_URL
// optional. Every target is a process it started on 127.0.0.1. Figures go to stdout and to
// bench/results/soak-<time>.json. Examples:
//   npm run soak                                       # everything: 100 iterations per point, 10 minutes
//   npm run soak -- --only load --minutes 1 --rate 20  # a short smoke of the load part
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import pg from "pg";
import { CLUSTER_ENCRYPTION_KEY, completeBody, createDatabase, paidCheckout, startCluster, startInstance, type Cluster } from "../test/cluster/cluster.js";
import { crashAndRetry, REQUEST_POINTS } from "../test/cluster/kill-points.js";
import { addEndpointOver, registerOwnerOver } from "../test/support/live-service.js";
import { SESSION_COOKIE } from "../src/identity/policy.js";

const { values: args } = parseArgs({
  options: {
    only: { type: "string" },
    iterations: { type: "string", default: "100" },
    minutes: { type: "string", default: "10" },
    rate: { type: "string", default: "50" },
    instances: { type: "string", default: "1" },
    "max-minutes": { type: "string", default: "90" },
  },
});
const ITERATIONS = Math.min(Number(args.iterations), 1000);
const LOAD_MINUTES = Math.min(Number(args.minutes), 60);
const RATE = Math.min(Number(args.rate), 1000);
const INSTANCES = Math.min(Math.max(Number(args.instances), 1), 4);
const DEADLINE = Date.now() + Math.min(Number(args["max-minutes"]), 240) * 60_000;
const parts = args.only ? args.only.split(",") : ["kill", "webhook", "load"];

if (!process.env.DATABASE_URL || !/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL)) {
  console.error("npm run soak needs DATABASE_URL=postgres://… (a fresh database is created next to it)");
  process.exit(2);
}
for (const url of [process.env.DATABASE_URL, process.env.REDIS_URL]) {
  if (url && !["127.0.0.1", "localhost", "[::1]"].includes(new URL(url).hostname)) {
    console.error(`refusing a non-loopback target: ${url}`);
    process.exit(2);
  }
}

const figures: Record<string, unknown> = { startedAt: new Date().toISOString(), args: { ITERATIONS, LOAD_MINUTES, RATE, INSTANCES } };
const log = (line: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);
const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : NaN);

async function withCluster<T>(instances: number, env: Record<string, string>, fn: (cluster: Cluster, db: pg.Client) => Promise<T>): Promise<T> {
  const cluster = await startCluster({ instances, env });
  const db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  try {
    return await fn(cluster, db);
  } finally {
    await db.end();
    await cluster.stop();
  }
}

async function killPoints(): Promise<void> {
  const result: Record<string, { iterations: number; failures: string[]; retryP50Ms: number; retryP99Ms: number }> = {};
  await withCluster(1, {}, async (cluster, db) => {
    for (const point of REQUEST_POINTS) {
      const retries: number[] = [];
      const failures: string[] = [];
      let i = 0;
      for (; i < ITERATIONS && Date.now() < DEADLINE; i++) {
        try {
          retries.push((await crashAndRetry(cluster, 0, point, db, `${point}-${Date.now()}-${i}`)).retryMs);
        } catch (error) {
          failures.push((error as Error).message);
          // A crash point left extra instances behind only if the check failed before splicing them out.
          for (const extra of cluster.instances.slice(1)) await extra.stop("SIGKILL");
          cluster.instances.splice(1);
        }
        if ((i + 1) % 10 === 0) log(`kill ${point}: ${i + 1}/${ITERATIONS}, ${failures.length} failed`);
      }
      retries.sort((a, b) => a - b);
      result[point] = { iterations: i, failures: failures.slice(0, 10), retryP50Ms: percentile(retries, 50), retryP99Ms: percentile(retries, 99) };
      log(`kill ${point}: ${i} iterations, ${failures.length} failed`);
    }
  });
  figures.kill = result;
}

async function webhookKills(): Promise<void> {
  // A receiver that records webhook ids and answers 200.
  const seen = new Set<string>();
  const receiver = http.createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      seen.add(String(request.headers["webhook-id"]));
      response.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const database = await createDatabase(process.env.DATABASE_URL!);
  const db = new pg.Client({ connectionString: database.url });
  const env = {
    DATABASE_URL: database.url,
    CHECKOUT_TOKEN_SECRET: "cluster-checkout-token-secret-0123456789abcdef",
    ENCRYPTION_KEY: CLUSTER_ENCRYPTION_KEY,
    ALLOW_PRIVATE_WEBHOOK_URLS: "true",
    RATE_LIMIT_ANONYMOUS: "1000000",
    LOG_LEVEL: "warn",
  };
  try {
    // Set up the endpoint with a healthy instance, then stop it: only crashing instances run below.
    const setup = await startInstance(env);
    const session = await registerOwnerOver(setup.baseUrl);
    await addEndpointOver(setup.baseUrl, session, receiverUrl);
    await setup.stop();
    await db.connect();
    const brand = (await db.query("select brand_id from webhook_endpoints limit 1")).rows[0].brand_id as string;
    let kills = 0;
    let i = 0;
    for (; i < ITERATIONS && Date.now() < DEADLINE; i++) {
      // A committed business change's event (as the checkout writes it), then an instance that dies before sending.
      await db.query("insert into outbox_events (id, brand_id, type, payload, created_at) values ($1, $2, 'checkout.created', $3, now())", [`evt_soak_${Date.now()}_${i}`, brand, JSON.stringify({ orderId: `soak-${i}` })]);
      const faulty = await startInstance({ ...env, FAULT_POINT: "webhook.before-send" }).catch(() => null);
      if (faulty) {
        await Promise.race([faulty.exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
        if (faulty.child.signalCode === "SIGKILL") kills++;
        else await faulty.stop("SIGKILL");
      } else kills++; // died before it was healthy: it reached the point during start-up
      if ((i + 1) % 10 === 0) log(`webhook kill: ${i + 1}/${ITERATIONS}`);
    }
    const deliveries = Number((await db.query("select count(*) n from webhook_deliveries")).rows[0].n);
    // A healthy instance sends everything once the claims' leases (30 s) have run out.
    const healthy = await startInstance(env);
    const started = Date.now();
    let pending = deliveries;
    while (Date.now() - started < 120_000) {
      pending = Number((await db.query("select count(*) n from webhook_deliveries where status <> 'succeeded'")).rows[0].n);
      if (pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    const ids = (await db.query("select id from webhook_deliveries")).rows.map((r) => r.id as string);
    const missing = ids.filter((id) => !seen.has(id));
    await healthy.stop();
    figures.webhook = { iterations: i, kills, deliveries, notSucceeded: pending, neverReceived: missing.length, deliveredAfterMs: Date.now() - started };
    log(`webhook kill: ${i} iterations, ${kills} kills, ${deliveries} deliveries, ${pending} not succeeded, ${missing.length} never received`);
  } finally {
    await db.end().catch(() => {});
    await database.drop();
    receiver.closeAllConnections();
    receiver.close();
  }
}

interface Gauges {
  heapUsed: number;
  eventLoopP99: number;
}

async function gauges(baseUrl: string): Promise<Gauges> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const value = (name: string) => Number(text.split("\n").find((l) => l.startsWith(`${name} `))?.split(" ")[1] ?? NaN);
  return { heapUsed: value("nodejs_heap_size_used_bytes"), eventLoopP99: value("nodejs_eventloop_lag_p99_seconds") };
}

async function mixedLoad(): Promise<void> {
  await withCluster(INSTANCES, {}, async (cluster) => {
    const client = cluster.client;
    const session = await registerOwnerOver(cluster.urls[0]);
    const latencies: Record<string, number[]> = {};
    const errors: Record<string, number> = {};
    let sequence = 0;
    const timed = async (op: string, fn: () => Promise<{ status: number }>, ok: number[] = [200]) => {
      const started = performance.now();
      try {
        const answer = await fn();
        (latencies[op] ??= []).push(performance.now() - started);
        if (!ok.includes(answer.status)) errors[`${op} ${answer.status}`] = (errors[`${op} ${answer.status}`] ?? 0) + 1;
        return answer;
      } catch (error) {
        errors[`${op} ${(error as Error).message}`] = (errors[`${op} ${(error as Error).message}`] ?? 0) + 1;
        return null;
      }
    };
    // One "unit" of the mix: generate, initialize, pay + complete, upsell create + accept, admin reads.
    const unit = async () => {
      const n = sequence++;
      const kind = n % 5;
      if (kind === 0) return void (await timed("token.generate", () => client.request("POST", "/api/token/generate", { body: {} })));
      if (kind === 1) {
        const generated = await timed("token.generate", () => client.request("POST", "/api/token/generate", { body: {} }));
        if (generated && "body" in generated) await timed("initialize", () => client.request("POST", "/api/checkout/initialize", { body: { token: (generated as any).body.token, provider: "intent_gateway" } }));
        return;
      }
      if (kind === 4) {
        await timed("admin.read", () => client.request("GET", "/api/admin/webhooks", { headers: { cookie: `${SESSION_COOKIE}=${session}`, "sec-fetch-site": "same-origin" } }));
        return;
      }
      const orderId = `load-${Date.now()}-${n}`;
      const paid = await paidCheckout(client, orderId, 3000).catch(() => null);
      if (!paid) return void (errors["pay"] = (errors["pay"] ?? 0) + 1);
      const done = (await timed("complete", () => client.request("POST", "/api/checkout/complete", { body: completeBody(orderId, paid.transactionId, 3000) }))) as any;
      if (kind === 3 && done?.status === 200) {
        const created = (await timed("upsell.create", () =>
          client.request("POST", "/api/upsell/create-session", {
            body: { orderId: `${orderId}-up`, originalOrderId: orderId, customerEmail: "ada@example.com", paymentMethodToken: done.body.paymentMethodToken, provider: "vault_gateway_b", offers: [{ id: "a", name: "A", price: 900 }] },
          }),
        )) as any;
        if (created?.status === 200) await timed("upsell.accept", () => client.request("POST", "/api/upsell/accept", { body: { sessionId: created.body.sessionId, offerId: "a" } }));
      }
    };

    const durationMs = LOAD_MINUTES * 60_000;
    // Heap grows while code warms up (JIT, caches, pools): compare only after a warm-up.
    const warmupMs = Math.min(120_000, durationMs / 4);
    const started = Date.now();
    const inflight = new Set<Promise<void>>();
    const heap: { at: number; instance: number; heapUsed: number; eventLoopP99: number }[] = [];
    const sampler = setInterval(async () => {
      for (const [i, url] of cluster.urls.entries()) {
        const g = await gauges(url).catch(() => null);
        if (g) heap.push({ at: Date.now() - started, instance: i, ...g });
      }
    }, 5_000);
    // A fixed rate: one unit every 1000/RATE ms, whatever the latency (open loop), bounded in flight.
    let next = Date.now();
    let dropped = 0;
    while (Date.now() - started < durationMs && Date.now() < DEADLINE) {
      next += 1000 / RATE;
      const wait = next - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (inflight.size >= RATE * 10) {
        dropped++;
        continue;
      }
      const p: Promise<void> = unit().finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
    clearInterval(sampler);
    for (const [i, url] of cluster.urls.entries()) {
      const g = await gauges(url);
      heap.push({ at: Date.now() - started, instance: i, ...g });
    }

    const ops = Object.fromEntries(
      Object.entries(latencies).map(([op, values]) => {
        values.sort((a, b) => a - b);
        return [op, { count: values.length, p50Ms: +percentile(values, 50).toFixed(1), p99Ms: +percentile(values, 99).toFixed(1) }];
      }),
    );
    // Leak check per instance: the lowest heap over the minute after warm-up vs the lowest over the last minute.
    const window = Math.min(60_000, (durationMs - warmupMs) / 3);
    const heapCheck = cluster.urls.map((_, i) => {
      const mine = heap.filter((h) => h.instance === i);
      const early = Math.min(...mine.filter((h) => h.at >= warmupMs && h.at < warmupMs + window).map((h) => h.heapUsed));
      const late = Math.min(...mine.filter((h) => h.at >= durationMs - window).map((h) => h.heapUsed));
      const maxLoopP99 = Math.max(...mine.map((h) => h.eventLoopP99));
      return { instance: i, heapEarlyMB: +(early / 2 ** 20).toFixed(1), heapLateMB: +(late / 2 ** 20).toFixed(1), changePct: +(((late - early) / early) * 100).toFixed(1), maxEventLoopP99Ms: +(maxLoopP99 * 1000).toFixed(1) };
    });
    const totalErrors = Object.values(errors).reduce((a, b) => a + b, 0);
    figures.load = { instances: INSTANCES, minutes: LOAD_MINUTES, ratePerSecond: RATE, units: sequence, dropped, errors, totalErrors, ops, heapCheck };
    log(`load: ${sequence} units at ${RATE}/s over ${INSTANCES} instance(s), ${totalErrors} errors, ${dropped} dropped`);
    for (const [op, f] of Object.entries(ops)) log(`  ${op}: ${f.count} requests, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms`);
    for (const h of heapCheck) log(`  instance ${h.instance}: heap ${h.heapEarlyMB} MB -> ${h.heapLateMB} MB (${h.changePct}%), event-loop p99 max ${h.maxEventLoopP99Ms} ms`);
  });
}

const started = Date.now();
let failed = false;
try {
  if (parts.includes("kill")) await killPoints();
  if (parts.includes("webhook")) await webhookKills();
  if (parts.includes("load")) await mixedLoad();
} catch (error) {
  failed = true;
  console.error(error);
}
figures.durationSeconds = Math.round((Date.now() - started) / 1000);
mkdirSync("bench/results", { recursive: true });
const file = `bench/results/soak-${new Date().toISOString().replace(/[:.]/g, "-")}.json`;
writeFileSync(file, JSON.stringify(figures, null, 2));
log(`figures written to ${file}`);
const kill = (figures.kill ?? {}) as Record<string, { failures: string[] }>;
const load = figures.load as { totalErrors: number; heapCheck: { changePct: number }[] } | undefined;
const webhook = figures.webhook as { notSucceeded: number; neverReceived: number } | undefined;
if (Object.values(kill).some((k) => k.failures.length > 0)) failed = true;
if (webhook && (webhook.notSucceeded > 0 || webhook.neverReceived > 0)) failed = true;
if (load && (load.totalErrors > 0 || load.heapCheck.some((h) => Math.abs(h.changePct) > 10))) failed = true;
process.exit(failed ? 1 : 0);
