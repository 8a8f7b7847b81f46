// The one-instance vs two-instances leg of `npm run bench`: the service as N processes on one
// PostgreSQL database and one Redis (what an operator scales out), the load spread over them by
// autocannon's round-robin over their URLs. Measures initialize, complete and the full
// checkout+upsell flow at full speed, then the flow at a fixed rate (the 300 flows/s), and
// the CPU per request of the service processes, PostgreSQL and Redis from /proc, which is what
// scales with cores (two instances cannot add throughput on a 2-core machine that also runs
// PostgreSQL and the load generator). Results go in docs/benchmarks.md and docs/operations.md.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import Redis from "ioredis";
import { SERVICE_PATHS, prepareCompletions, prepareInitializations } from "./lib/checkout-flow.mjs";
import { FLOW_STEPS, fireFlows, prepareFlows } from "./lib/flow.mjs";
import { measuredRun } from "./lib/load.mjs";
import { createDatabase, dropDatabase } from "./lib/postgres.mjs";
import { postgresPids, startNodeServer } from "./lib/proc.mjs";
import { attempt, bodiesLoad, describeRun, log, scenario } from "./lib/scenario.mjs";
import { TOKEN_SECRET, serviceEnv } from "./lib/service-env.mjs";

export const LOCAL_REDIS = "redis://127.0.0.1:6379";
// The target for the full flow on one instance with PostgreSQL.
export const FLOW_TARGET = { flowsPerS: 300, p99: 100 };

/** The Redis to use, or null when none answers (the leg is then skipped). */
export async function findRedis() {
  const url = process.env.REDIS_URL || LOCAL_REDIS;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2_000 });
  try {
    await client.connect();
    await client.ping();
    return url;
  } catch {
    return null;
  } finally {
    client.disconnect();
  }
}

function redisPids() {
  return readdirSync("/proc").filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "redis-server";
    } catch {
      return false;
    }
  }).map(Number);
}

/** Starts `count` instances on `url` one after the other (the first runs the migrations). */
async function startInstances({ count, url, redisUrl, workDir }) {
  const instances = [];
  try {
    for (let i = 0; i < count; i++) {
      const dataDir = mkdtempSync(path.join(workDir, `instance-${i}-`));
      instances.push(await startNodeServer({ script: "dist/main.js", env: { ...serviceEnv({ url, dataDir }), REDIS_URL: redisUrl }, logFile: path.join(dataDir, "service.log") }));
    }
    return instances;
  } catch (error) {
    await Promise.all(instances.map((i) => i.stop()));
    throw error;
  }
}

/** One instance count: a fresh database, the instances, the four scenarios. */
async function benchInstances({ count, postgresUrl, redisUrl, options, workDir }) {
  const database = `bench_cluster${count}_${process.pid}_${Date.now()}`;
  const url = await createDatabase(postgresUrl, database);
  const label = `${count} instance${count > 1 ? "s" : ""}`;
  const out = {};
  try {
    log(`cluster: starting ${label} on one PostgreSQL database and Redis`);
    const instances = await startInstances({ count, url, redisUrl, workDir });
    const urls = instances.map((i) => i.baseUrl);
    const pids = () => ({ server: instances.map((i) => i.pid), postgres: postgresPids(database), redis: redisPids() });
    try {
      out.initialize = await attempt(`${label} initialize`, () =>
        scenario(`${label} initialize`, {
          options,
          pids,
          load: bodiesLoad({ urls, path: SERVICE_PATHS.initialize, prepare: (n) => prepareInitializations({ secret: TOKEN_SECRET, count: n }) }),
        }),
      );
      out.complete = await attempt(`${label} complete`, () =>
        scenario(`${label} complete`, {
          options,
          pids,
          firstGuess: out.initialize.median?.rps ?? 1000,
          load: bodiesLoad({
            urls,
            path: SERVICE_PATHS.complete,
            // Prepared through the first instance; which one does not matter, they share the database.
            prepare: (n) => prepareCompletions({ baseUrl: urls[0], paths: SERVICE_PATHS, secret: TOKEN_SECRET, count: n }),
          }),
        }),
      );
      const flowLoad = (rate) => async (requests) => ({
        urls,
        fire: fireFlows,
        rate,
        pool: await prepareFlows({ secret: TOKEN_SECRET, count: Math.ceil(requests / FLOW_STEPS.length) }),
      });
      out.flow = await attempt(`${label} flow`, () => scenario(`${label} full flow`, { options, pids, firstGuess: 1000, load: flowLoad(null) }));
      out.flowAtTarget = await attempt(`${label} flow at ${FLOW_TARGET.flowsPerS}/s`, async () => {
        // A fixed-rate run: what a steady 300 flows/s costs and how long its requests take. Arrivals
        // are open-loop (fireFlows with a rate): a closed loop of 50 connections would cap the rate
        // at 50 / flow latency instead of measuring the service.
        const flows = FLOW_TARGET.flowsPerS * options.durationS;
        const run = await measuredRun({ pids, ...(await flowLoad(FLOW_TARGET.flowsPerS)(flows * FLOW_STEPS.length)) });
        log(`${label} full flow at ${FLOW_TARGET.flowsPerS} flows/s: ${describeRun(run)}`);
        return { name: "flowAtTarget", runs: [run], median: run };
      });
    } finally {
      await Promise.all(instances.map((i) => i.stop()));
    }
    return out;
  } finally {
    await dropDatabase(postgresUrl, database).catch((error) => log(`could not drop ${database}: ${error.message}`));
  }
}

/** The leg: 1 then 2 instances (`counts`), each on its own fresh database. */
export async function benchCluster({ postgresUrl, redisUrl, options, workDir, counts = [1, 2] }) {
  const dir = mkdtempSync(path.join(workDir, "cluster-"));
  const out = {};
  try {
    for (const count of counts) out[count] = await benchInstances({ count, postgresUrl, redisUrl, options, workDir: dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
