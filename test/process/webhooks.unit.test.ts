// Webhook delivery survives the process: events of checkouts completed before a SIGKILL are all
// delivered after a restart, once each per endpoint (by webhook-id); and two processes on one
// PostgreSQL database share 500 deliveries without sending any twice. Needs `npm run build`.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { addEndpointOver, completeCheckoutOver, registerOwnerOver } from "../support/live-service.js";
import { migratedDataDir, startServer, type StartedServer } from "../support/process.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

const TOKEN_SECRET = "process-test-token-secret-0123456789abcdef";
const ENV = {
  CHECKOUT_TOKEN_SECRET: TOKEN_SECRET,
  ENCRYPTION_KEY: Buffer.alloc(32, 9).toString("base64"),
  ALLOW_PRIVATE_WEBHOOK_URLS: "true",
  RATE_LIMIT_ANONYMOUS: "100000",
  RATE_LIMIT_AUTHENTICATED: "100000",
  LOG_LEVEL: "info",
};

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!().catch(() => {});
});

/** Resolves once `check` holds, polling; fails with `what` after `timeoutMs`. */
async function until(check: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const idOf = (r: { headers: Record<string, unknown> }) => String(r.headers["webhook-id"]);

describe("webhook delivery across a crash", () => {
  it("delivers every event of checkouts completed before a SIGKILL after the restart, once per endpoint by webhook-id", async () => {
    const receiver: Receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    // The receiver is down (503) until the first process is dead: nothing is delivered before the kill.
    receiver.answer = { status: 503 };
    const dataDir = await migratedDataDir("svc-webhooks-");
    const first: StartedServer = await startServer({ ...ENV, DATA_DIR: dataDir });
    cleanup.push(() => first.stop("SIGKILL"));
    const session = await registerOwnerOver(first.baseUrl);
    await addEndpointOver(first.baseUrl, session, `${receiver.url}/a`);
    await addEndpointOver(first.baseUrl, session, `${receiver.url}/b`);
    const orderIds = Array.from({ length: 5 }, (_, i) => `crash-${i}-${randomBytes(3).toString("hex")}`);
    for (const orderId of orderIds) await completeCheckoutOver(first.baseUrl, TOKEN_SECRET, orderId);
    expect(await first.stop("SIGKILL")).toBeNull();
    expect(receiver.received.every((r) => r.path === "/a" || r.path === "/b")).toBe(true);

    receiver.answer = { status: 200 };
    const acceptedAt = receiver.received.length;
    const second = await startServer({ ...ENV, DATA_DIR: dataDir });
    cleanup.push(() => second.stop());
    // 5 checkouts x 4 events (created, completed, payment.succeeded, order.confirmed) x 2 endpoints.
    const expected = orderIds.length * 4 * 2;
    const accepted = () => receiver.received.slice(acceptedAt);
    // First retries come 5 to 10 s after a failure (CONTRACT §33).
    await until(() => new Set(accepted().map(idOf)).size >= expected, 30_000, () => `${new Set(accepted().map(idOf)).size} of ${expected} delivered`);
    await new Promise((resolve) => setTimeout(resolve, 500));

    const byId = new Map<string, { path: string; type: string; orderId: string }>();
    for (const r of accepted()) {
      const body = JSON.parse(r.body) as { type: string; data: { orderId?: string } };
      byId.set(idOf(r), { path: r.path, type: body.type, orderId: String(body.data.orderId) });
    }
    expect(byId.size).toBe(expected);
    // Each (endpoint, event) has exactly one webhook-id: a receiver deduplicating by it sees each event once.
    const keys = [...byId.values()].map((v) => `${v.path} ${v.type} ${v.orderId}`);
    expect(new Set(keys).size).toBe(expected);
    for (const orderId of orderIds) {
      for (const endpoint of ["/a", "/b"]) {
        expect(keys.filter((k) => k.startsWith(`${endpoint} `) && k.endsWith(` ${orderId}`)).map((k) => k.split(" ")[1]).sort()).toEqual([
          "checkout.completed",
          "checkout.created",
          "order.confirmed",
          "payment.succeeded",
        ]);
      }
    }
    // Retries of a failed attempt reuse the id the receiver saw before the kill.
    const beforeKill = new Set(receiver.received.slice(0, acceptedAt).map(idOf));
    for (const id of beforeKill) expect(byId.has(id)).toBe(true);
  });
});

describe.skipIf(!process.env.DATABASE_URL)("two processes on one PostgreSQL database (skipped: DATABASE_URL is not set)", () => {
  it("deliver 500 events with no duplicate sends", async () => {
    const base = process.env.DATABASE_URL!;
    const name = `test_wh2_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    cleanup.push(async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    });
    const url = new URL(base);
    url.pathname = `/${name}`;
    const env = { ...ENV, DATABASE_URL: url.toString() };

    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const one = await startServer(env);
    cleanup.push(() => one.stop());
    const two = await startServer(env);
    cleanup.push(() => two.stop());
    const session = await registerOwnerOver(one.baseUrl);
    await addEndpointOver(one.baseUrl, session, `${receiver.url}/hook`);

    // 500 events as the business transactions write them (outbox rows of the default brand).
    const db = new pg.Client({ connectionString: url.toString() });
    await db.connect();
    cleanup.push(() => db.end());
    await db.query(`
      insert into outbox_events (id, brand_id, type, payload, created_at)
      select 'evt_two_' || g, 'brand_default', 'payment.succeeded', jsonb_build_object('orderId', 'two-' || g), now()
      from generate_series(1, 500) g`);

    await until(() => new Set(receiver.received.map(idOf)).size >= 500, 30_000, () => `${new Set(receiver.received.map(idOf)).size} of 500 delivered`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.received).toHaveLength(500);
    expect(new Set(receiver.received.map((r) => JSON.parse(r.body).data.orderId)).size).toBe(500);
    const { rows } = await db.query(`select status, count(*)::int as n from webhook_deliveries group by status`);
    expect(rows).toEqual([{ status: "succeeded", n: 500 }]);
  });
});
