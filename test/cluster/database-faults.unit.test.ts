// Database faults. PostgreSQL (a private server, never the shared one) restarted under load:
// requests in the outage answer 503 with the contract's error body, /healthz says 503 within a
// second, the process never exits and recovers by itself within 5 s of the database coming back.
// Then 20 restarts under a load of whole checkouts on two instances (issue 31 item 5): no exit,
// every failed request overlapped an outage, every acknowledged order stored once.
// Embedded PGlite: SIGKILL during writes, then a restart on the same DATA_DIR: every acknowledged
// order is there (a repeated `complete` replays it).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTER_ENCRYPTION_KEY, CLUSTER_TOKEN_SECRET, completeBody, createDatabase, paidCheckout, RoundRobinClient, startInstance, type Answer, type Instance } from "./cluster.js";
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
      expect(answer.body).toMatchObject(UNAVAILABLE);
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

const RESTARTS = 20;

describe.skipIf(pgSkip !== null)(`PostgreSQL restarted ${RESTARTS} times under load, two instances`, () => {
  let server: PostgresServer;
  let database: { url: string; drop(): Promise<void> };
  const instances: Instance[] = [];
  beforeAll(async () => {
    server = await startPostgres();
    database = await createDatabase(server.url);
    // Workers on (the default): the receipts, mail and webhook jobs run their passes through the restarts too.
    // Admission control's 25-ms queue threshold is for an instance with cores of its own: on a shared
    // CI machine it refuses a new checkout now and then whatever the database does (as in buildTestApp).
    const env = {
      DATABASE_URL: database.url,
      CHECKOUT_TOKEN_SECRET: CLUSTER_TOKEN_SECRET,
      ENCRYPTION_KEY: CLUSTER_ENCRYPTION_KEY,
      RATE_LIMIT_ANONYMOUS: "1000000",
      ADMISSION_NEW_POOL_WAIT_MS: "1000",
      LOG_LEVEL: "warn",
      SHUTDOWN_DRAIN_SECONDS: "0",
    };
    instances.push(await startInstance(env));
    instances.push(await startInstance(env));
  });
  afterAll(async () => {
    await Promise.all(instances.map((i) => i.stop("SIGKILL")));
    await server?.destroy();
  });

  it("no exit; every failure is a 503 with Retry-After during an outage; every acknowledged order stored once", { timeout: 240_000 }, async () => {
    const client = new RoundRobinClient(() => instances.map((i) => i.baseUrl));
    const readyz = async (instance: Instance) => (await fetch(`${instance.baseUrl}/readyz`).catch(() => null))?.status ?? 0;
    const exited = () => instances.filter((i) => i.child.exitCode !== null || i.child.signalCode !== null);
    type Sent = { path: string; status: number; body: Record<string, any>; retryAfter: string | null; from: number; to: number };
    const sent: Sent[] = [];
    const transportErrors: string[] = [];
    const acknowledged = new Map<string, number>();
    const call = async (method: string, path: string, body: unknown): Promise<Answer | null> => {
      const from = Date.now();
      try {
        const answer = await client.request(method, path, { body });
        sent.push({ path, status: answer.status, body: answer.body, retryAfter: answer.headers.get("retry-after"), from, to: Date.now() });
        return answer;
      } catch (error) {
        transportErrors.push(`${path}: ${(error as Error).message} ${String((error as { cause?: unknown }).cause)}`);
        return null;
      }
    };
    // A buyer's whole journey, each step retried until it succeeds (a 503 says "try again").
    const step = async (method: string, path: string, body: unknown, ok: number[]) => {
      for (;;) {
        if (!running) return null;
        const answer = await call(method, path, body);
        if (answer && ok.includes(answer.status)) return answer;
      }
    };
    let running = true;
    const loops = Array.from({ length: 6 }, async () => {
      while (running) {
        // The generator mints the orderId: a retried generate is a new order, never a repeat.
        const token = await step("POST", "/api/token/generate", { orderInfo: { total: 1500, currency: "USD", productName: "Kit" } }, [200]);
        if (!token) return;
        const realOrderId = token.body.payload.orderId as string;
        if (!(await step("POST", "/api/checkout/initialize", { token: token.body.token, provider: "vault_gateway_b" }, [200]))) return;
        const card = { cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" };
        const paid = await step("POST", "/api/providers/vault_gateway_b/process-payment", { orderId: realOrderId, amount: 1500, currency: "USD", ...card }, [200, 409]);
        if (!paid) return;
        const transactionId = paid.status === 200 ? (paid.body.transactionId as string) : null;
        if (!transactionId) continue; // paid by an earlier try whose answer was lost: the journey stops here
        const done = await step("POST", "/api/checkout/complete", completeBody(realOrderId, transactionId, 1500), [200]);
        if (done) acknowledged.set(realOrderId, (acknowledged.get(realOrderId) ?? 0) + 1);
      }
    });

    const outages: { stoppedAt: number; startedAt: number; readyMs: number[]; firstOrderMs: number }[] = [];
    const until = async (predicate: () => boolean | Promise<boolean>, timeoutMs: number, what: string) => {
      const deadline = Date.now() + timeoutMs;
      while (!(await predicate())) {
        const gone = exited();
        if (gone.length) throw new Error(`${what}: an instance exited (${gone[0]!.child.exitCode ?? gone[0]!.child.signalCode}):\n${gone[0]!.output().slice(-6_000)}`);
        if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms\n${instances.map((i) => i.output().slice(-4_000)).join("\n")}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const allReadyz = async (status: number) => (await Promise.all(instances.map(readyz))).every((s) => s === status);
    try {
      await until(() => acknowledged.size >= 10, 60_000, "warm-up orders");
      for (let k = 0; k < RESTARTS; k++) {
        const stoppedAt = Date.now();
        await server.stop("fast");
        // /readyz says the database is away on every instance before it comes back.
        await until(() => allReadyz(503), 5_000, `restart ${k + 1}: /readyz 503 on every instance`);
        await server.start();
        const startedAt = Date.now();
        const ordersBefore = acknowledged.size;
        const readyMs = await Promise.all(
          instances.map(async (instance) => {
            await until(async () => (await readyz(instance)) === 200, 10_000, `restart ${k + 1}: /readyz 200 again`);
            return Date.now() - startedAt;
          }),
        );
        await until(() => acknowledged.size > ordersBefore, 10_000, `restart ${k + 1}: an order acknowledged again`);
        outages.push({ stoppedAt, startedAt, readyMs, firstOrderMs: Date.now() - startedAt });
        // Some load between restarts: a few more whole orders.
        await until(() => acknowledged.size >= ordersBefore + 5, 20_000, `restart ${k + 1}: orders after the restart`);
        for (const instance of instances) expect(instance.child.exitCode, instance.output().slice(-4_000)).toBeNull();
      }
    } finally {
      running = false;
      await Promise.all(loops);
    }

    const failures = sent.filter((r) => r.status !== 200 && !(r.status === 409 && r.path.includes("process-payment")));
    const outside = failures.filter((r) => !outages.some((o) => r.from <= o.startedAt && r.to >= o.stoppedAt));
    const ready = outages.flatMap((o) => o.readyMs).sort((a, b) => a - b);
    const firstOrder = outages.map((o) => o.firstOrderMs).sort((a, b) => a - b);
    console.info(
      `${RESTARTS} PostgreSQL restarts, 2 instances: ${sent.length} requests, ${failures.length} answered 503, ${acknowledged.size} orders acknowledged; ` +
        `/readyz 200 again after the start: median ${ready[Math.floor(ready.length / 2)]} ms, max ${ready.at(-1)} ms; ` +
        `first order acknowledged after the start: median ${firstOrder[Math.floor(firstOrder.length / 2)]} ms, max ${firstOrder.at(-1)} ms; ` +
        `per restart (readyz a/b, first order, ms): ${outages.map((o) => `${o.readyMs.join("/")},${o.firstOrderMs}`).join(" ")}`,
    );

    for (const instance of instances) expect(instance.child.exitCode, instance.output().slice(-8_000)).toBeNull();
    expect(transportErrors).toEqual([]);
    expect(failures.length).toBeGreaterThan(0);
    // 503 and "try again in a second": the database is away, or (admission control, rarely with the
    // threshold above) connection attempts to a database going away queued for a moment.
    const OVERLOADED = { error: "Service busy", code: "OVERLOADED" };
    for (const failure of failures) {
      expect({ path: failure.path, status: failure.status, retryAfter: failure.retryAfter }).toEqual({ path: failure.path, status: 503, retryAfter: "1" });
      // The contract's members; requestId and docUrl follow them on every error (issue 33).
      expect([UNAVAILABLE, OVERLOADED]).toContainEqual({ error: failure.body.error, code: failure.body.code });
    }
    expect(outside.map((r) => `${r.path} ${r.status} ${JSON.stringify(r.body)}`)).toEqual([]);

    // Every acknowledged order is stored exactly once.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const ids = [...acknowledged.keys()];
      const { rows } = await db.query("select order_id, count(*)::int as n from orders where order_id = any($1) group by order_id", [ids]);
      const stored = new Map(rows.map((row) => [row.order_id as string, row.n as number]));
      expect(ids.filter((id) => stored.get(id) !== 1)).toEqual([]);
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
