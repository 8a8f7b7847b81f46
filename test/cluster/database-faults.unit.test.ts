// Database faults. PostgreSQL (a private server, never the shared one) restarted under load:
// requests in the outage answer 503 with the contract's error body, /healthz says 503 within a
// second, the process never exits and recovers by itself within 5 s of the database coming back.
// Embedded PGlite: SIGKILL during writes, then a restart on the same DATA_DIR: every acknowledged
// order is there (a repeated `complete` replays it).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTER_ENCRYPTION_KEY, CLUSTER_TOKEN_SECRET, completeBody, paidCheckout, RoundRobinClient, startInstance, type Answer, type Instance } from "./cluster.js";
import { postgresSkipReason, startPostgres, type PostgresServer } from "./servers.js";

const pgSkip = postgresSkipReason();
if (pgSkip) console.warn(`test/cluster/database-faults (PostgreSQL restart): ${pgSkip}`);

const UNAVAILABLE = { error: "Service temporarily unavailable", code: "SERVICE_UNAVAILABLE" };

async function until(predicate: () => boolean | Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

const healthStatus = async (instance: Instance) => (await fetch(`${instance.baseUrl}/healthz`)).status;

describe.skipIf(pgSkip !== null)("PostgreSQL restarted under load", () => {
  let server: PostgresServer;
  let instance: Instance;
  beforeAll(async () => {
    server = await startPostgres();
    instance = await startInstance({
      DATABASE_URL: server.url,
      CHECKOUT_TOKEN_SECRET: CLUSTER_TOKEN_SECRET,
      ENCRYPTION_KEY: CLUSTER_ENCRYPTION_KEY,
      RATE_LIMIT_ANONYMOUS: "1000000",
      LOG_LEVEL: "warn",
    });
  });
  afterAll(async () => {
    await instance?.stop("SIGKILL");
    await server?.destroy();
  });

  it("503 with the contract's body during the outage, /healthz 503 within 1 s, back by itself within 5 s, no exit", { timeout: 120_000 }, async () => {
    const client = new RoundRobinClient(() => [instance.baseUrl]);
    const answers: { phase: string; answer: Answer }[] = [];
    const acknowledged: string[] = [];
    let phase = "before";
    let running = true;
    const loops = Array.from({ length: 4 }, async () => {
      while (running) {
        const answer = await client.request("POST", "/api/token/generate", { body: { orderInfo: { total: 1000, currency: "USD", productName: "Kit" } } });
        answers.push({ phase, answer });
        if (answer.status === 200) acknowledged.push(answer.body.payload.orderId);
      }
    });
    await until(() => answers.length >= 30, 20_000);

    phase = "outage";
    await server.stop("fast");
    const healthAfterMs = await until(async () => (await healthStatus(instance)) === 503, 5_000);
    await until(() => answers.filter((a) => a.phase === "outage" && a.answer.status === 503).length >= 10, 10_000);

    await server.start();
    phase = "recovering";
    const recoveredMs = await until(async () => (await healthStatus(instance)) === 200, 10_000);
    phase = "after";
    await until(() => answers.filter((a) => a.phase === "after" && a.answer.status === 200).length >= 20, 10_000);
    running = false;
    await Promise.all(loops);

    const failed = answers.filter((a) => a.answer.status !== 200).length;
    console.info(`postgres restart: /healthz 503 ${healthAfterMs} ms after the stop, 200 ${recoveredMs} ms after the start; ${failed} of ${answers.length} requests answered 503`);
    expect(healthAfterMs).toBeLessThan(1_000);
    expect(recoveredMs).toBeLessThan(5_000);
    expect(instance.child.exitCode).toBeNull();
    const failures = answers.filter((a) => a.answer.status !== 200);
    expect(failures.length).toBeGreaterThan(0);
    for (const { answer } of failures) {
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual(UNAVAILABLE);
      expect(answer.headers.get("retry-after")).toBe("1");
    }
    expect(answers.filter((a) => a.phase === "after").every((a) => a.answer.status === 200)).toBe(true);

    // No partial writes: every acknowledged token's checkout short link was stored.
    const db = new pg.Client({ connectionString: server.url });
    await db.connect();
    try {
      const rows = await db.query("select count(*)::int n from short_links");
      expect(rows.rows[0].n).toBeGreaterThanOrEqual(acknowledged.length);
    } finally {
      await db.end();
    }
  });
});

describe("embedded PGlite: SIGKILL during writes", () => {
  it("every order acknowledged before the kill is there after a restart", { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "faults-pglite-"));
    const env = { DATA_DIR: dataDir, CHECKOUT_TOKEN_SECRET: CLUSTER_TOKEN_SECRET, ENCRYPTION_KEY: CLUSTER_ENCRYPTION_KEY, RATE_LIMIT_ANONYMOUS: "1000000", LOG_LEVEL: "warn" };
    let instance = await startInstance(env, { timeoutMs: 60_000 });
    try {
      const client = new RoundRobinClient(() => [instance.baseUrl]);
      const acknowledged: { body: ReturnType<typeof completeBody>; answer: Record<string, unknown> }[] = [];
      let killed = false;
      let n = 0;
      const loops = Array.from({ length: 3 }, async () => {
        while (!killed) {
          try {
            const orderId = `kill-${process.pid}-${n++}`;
            const { transactionId } = await paidCheckout(client, orderId, 1000);
            const body = completeBody(orderId, transactionId, 1000);
            const done = await client.request("POST", "/api/checkout/complete", { body });
            if (done.status === 200) acknowledged.push({ body, answer: done.body });
          } catch {
            // the kill: connections reset mid-request
          }
        }
      });
      await until(() => acknowledged.length >= 8, 60_000);
      killed = true;
      await instance.stop("SIGKILL");
      await Promise.all(loops);

      instance = await startInstance(env, { timeoutMs: 60_000 });
      for (const { body, answer } of acknowledged) {
        const again = await client.request("POST", "/api/checkout/complete", { body });
        expect(again.status, again.text).toBe(200);
        expect(again.body).toEqual(answer);
      }
    } finally {
      await instance.stop("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
