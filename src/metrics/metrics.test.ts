// GET /metrics as an operator's scraper sees it: requests by route pattern (never the raw URL), the
// outbox depth and age, webhook delivery outcomes against a real receiver, the rate-limit Redis
// fallback, the PostgreSQL pool, and no rate limit on the scrape itself.
import net from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "../db/transaction.js";
import { queueMails } from "../identity/mail.js";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { adminCall, registerOwner } from "../../test/support/admin.js";
import { testEngine } from "../../test/support/database.js";
import { startReceiver, type Receiver } from "../../test/support/webhook-receiver.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";
import { AMOUNT, card } from "../../test/support/provider-payments.js";
import { enqueueEvents } from "../outbox/events.js";

/** A payment at the demo vault gateway with a card the demo declines. */
const PAY_ATTEMPT = (t: TestApp, orderId: string) =>
  post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: AMOUNT, currency: "USD", ...card("4000000000000002") });

/** The value of one sample line (`name{labels} value`), or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (.+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(t: TestApp): Promise<string> {
  const res = await t.app.inject({ method: "GET", url: "/metrics" });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toContain("text/plain");
  return res.body;
}

describe("/metrics", () => {
  let t: TestApp;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it("says which build runs, and counts orders, revenue and declines once each, when their events are fanned out (issue 21)", async () => {
    const text0 = await scrape(t);
    expect(text0).toMatch(/checkout_build_info\{version="0\.1\.0",commit="(?:[0-9a-f]{40}|unknown)"\} 1/);
    const demo = { provider: "vault_gateway_b", currency: "USD", livemode: "false" };
    const orders0 = sample(text0, "checkout_orders_total", { ...demo, kind: "checkout" }) ?? 0;
    const revenue0 = sample(text0, "checkout_revenue_minor_units_total", demo) ?? 0;
    const declines0 = sample(text0, "checkout_payment_declines_total", { provider: "vault_gateway_b", livemode: "false" }) ?? 0;
    await completeCheckoutViaApi(t);
    await completeCheckoutViaApi(t);
    // A declined card: one payment.failed.
    const declined = orderClaims({ amount: AMOUNT, currency: "USD" });
    await post(t, "/api/checkout/initialize", { token: await signToken(t, declined), provider: "vault_gateway_b" });
    expect((await PAY_ATTEMPT(t, declined.orderId as string)).statusCode).toBe(402);
    // Counted at fan-out, not before (so each event counts once, across instances).
    expect(sample(await scrape(t), "checkout_orders_total", { ...demo, kind: "checkout" }) ?? 0).toBe(orders0);
    await t.app.webhookWorker.deliverDue();
    await t.app.webhookWorker.deliverDue();
    const text = await scrape(t);
    expect(sample(text, "checkout_orders_total", { ...demo, kind: "checkout" })).toBe(orders0 + 2);
    expect(sample(text, "checkout_revenue_minor_units_total", demo)).toBe(revenue0 + 2 * AMOUNT);
    expect(sample(text, "checkout_payment_declines_total", { provider: "vault_gateway_b", livemode: "false" })).toBe(declines0 + 1);
  });

  it("counts requests and their latency by route pattern, never by raw URL", async () => {
    const before = await scrape(t);
    const seen = sample(before, "http_request_duration_seconds_count", { method: "GET", route: "/c/:code", status: "404" }) ?? 0;
    await t.app.inject({ method: "GET", url: "/c/secret-short-code-1", headers: { "x-forwarded-for": "10.0.0.1" } });
    await t.app.inject({ method: "GET", url: "/c/secret-short-code-2" });
    await t.app.inject({ method: "GET", url: "/no/such/path/raw-token-xyz" });

    const text = await scrape(t);
    expect(sample(text, "http_request_duration_seconds_count", { method: "GET", route: "/c/:code", status: "404" })).toBe(seen + 2);
    expect(sample(text, "http_request_duration_seconds_bucket", { method: "GET", route: "/c/:code", status: "404", le: "+Inf" })).toBe(seen + 2);
    expect(sample(text, "http_request_duration_seconds_count", { route: "(unmatched)", status: "404" })).toBeGreaterThanOrEqual(1);
    expect(sample(text, "http_request_duration_seconds_count", { method: "GET", route: "/metrics", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain("secret-short-code");
    expect(text).not.toContain("raw-token-xyz");
    // The process's own figures (heap, event-loop delay) for the memory and latency alerts.
    expect(sample(text, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    expect(sample(text, "nodejs_eventloop_lag_p99_seconds")).toBeDefined();
  });

  it("shows the outbox depth and the age of the oldest undispatched event, by the service clock", async () => {
    await t.app.webhookWorker.deliverDue();
    let text = await scrape(t);
    expect(sample(text, "outbox_undispatched_events")).toBe(0);
    expect(sample(text, "outbox_oldest_undispatched_age_seconds")).toBe(0);
    expect(sample(text, "database_up")).toBe(1);

    const brandId = "brand_default";
    await enqueueEvents(t.deps.database.db, t.clock.now(), [
      { brandId, type: "checkout.created", data: { orderId: "o-1" } as never },
      { brandId, type: "checkout.completed", data: { orderId: "o-1" } as never },
    ]);
    t.clock.advance(90_000);
    await enqueueEvents(t.deps.database.db, t.clock.now(), [{ brandId, type: "order.confirmed", data: { orderId: "o-1" } as never }]);
    text = await scrape(t);
    expect(sample(text, "outbox_undispatched_events")).toBe(3);
    expect(sample(text, "outbox_oldest_undispatched_age_seconds")).toBe(90);

    await t.app.webhookWorker.deliverDue();
    text = await scrape(t);
    expect(sample(text, "outbox_undispatched_events")).toBe(0);
    expect(sample(text, "outbox_oldest_undispatched_age_seconds")).toBe(0);
  });

  it("counts webhook delivery outcomes: succeeded, retrying and given up", async () => {
    const owner = await registerOwner(t, "Metrics shop");
    const created = await adminCall(t, "POST", "/api/admin/webhooks", { session: owner.session, body: { name: "R", url: `${receiver.url}/hook`, events: ["*"] } });
    expect(created.statusCode, created.body).toBe(200);
    await t.app.webhookWorker.deliverDue();
    const before = await scrape(t);
    const base = (outcome: string) => sample(before, "webhook_deliveries_total", { outcome }) ?? 0;

    receiver.answer = { status: 200 };
    await enqueueEvents(t.deps.database.db, t.clock.now(), [{ brandId: owner.brandId, type: "checkout.created", data: { n: 1 } as never }]);
    await t.app.webhookWorker.deliverDue();
    receiver.answer = { status: 500 };
    await enqueueEvents(t.deps.database.db, t.clock.now(), [{ brandId: owner.brandId, type: "checkout.created", data: { n: 2 } as never }]);
    await t.app.webhookWorker.deliverDue();
    receiver.answer = { status: 410 };
    t.clock.advance(11_000);
    await t.app.webhookWorker.deliverDue();

    const text = await scrape(t);
    expect(sample(text, "webhook_deliveries_total", { outcome: "succeeded" })).toBe(base("succeeded") + 1);
    expect(sample(text, "webhook_deliveries_total", { outcome: "retrying" })).toBe(base("retrying") + 1);
    expect(sample(text, "webhook_deliveries_total", { outcome: "failed" })).toBe(base("failed") + 1);
    expect(sample(text, "webhook_deliveries_pending")).toBe(0);
  });

  it.runIf(testEngine === "postgres")("shows the PostgreSQL pool: open, idle and waiting", async () => {
    const text = await scrape(t);
    expect(sample(text, "db_pool_connections")).toBeGreaterThanOrEqual(1);
    expect(sample(text, "db_pool_idle_connections")).toBeGreaterThanOrEqual(0);
    expect(sample(text, "db_pool_waiting_requests")).toBe(0);
  });

  it.runIf(testEngine === "postgres")("shows a wait for a pool connection: waiting while it lasts, then in the wait histogram", async () => {
    const pool = t.deps.database.pool!;
    const count = (text: string) => sample(text, "db_pool_wait_seconds_count") ?? 0;
    const before = count(await scrape(t));
    const held = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()));
    const queued = pool.query("select 1");
    const scraping = scrape(t); // its outbox read waits for a connection too
    while (pool.waitingCount < 2) await new Promise((resolve) => setImmediate(resolve));
    held.forEach((client) => client.release());
    const during = await scraping;
    await queued;
    expect(sample(during, "db_pool_waiting_requests")).toBeGreaterThanOrEqual(1);
    const after = await scrape(t);
    // The held connections, the queued query and the first scrape's read, at least.
    expect(count(after)).toBeGreaterThanOrEqual(before + pool.options.max + 2);
    expect(sample(after, "db_pool_wait_seconds_bucket", { le: "+Inf" })).toBe(count(after));
  });

  it.runIf(testEngine === "pglite")("has no pool series on the embedded database (one in-process connection)", async () => {
    expect(sample(await scrape(t), "db_pool_connections")).toBeUndefined();
  });

  it("has no Redis fallback series without REDIS_URL", async () => {
    expect(sample(await scrape(t), "rate_limit_redis_fallback_active")).toBeUndefined();
  });
});

describe("/metrics with rate limits and an unreachable Redis", () => {
  it("shows the rate-limit fallback as active, counts the requests counted per process, and is itself never limited", async () => {
    const t = await buildTestApp({ env: { REDIS_URL: "redis://127.0.0.1:1", RATE_LIMIT_ANONYMOUS: "3" } });
    try {
      let text = await scrape(t);
      expect(sample(text, "rate_limit_redis_fallback_active")).toBe(0);
      expect(sample(text, "rate_limit_redis_fallbacks_total")).toBe(0);
      for (let i = 0; i < 3; i++) expect((await t.app.inject({ method: "GET", url: "/api/nope" })).statusCode).toBe(404);
      expect((await t.app.inject({ method: "GET", url: "/api/nope" })).statusCode).toBe(429);
      for (let i = 0; i < 5; i++) expect((await t.app.inject({ method: "GET", url: "/metrics" })).statusCode).toBe(200);
      text = await scrape(t);
      expect(sample(text, "rate_limit_redis_fallback_active")).toBe(1);
      expect(sample(text, "rate_limit_redis_fallbacks_total")).toBe(4);
      expect(t.logs.join("")).toContain("rate limiting: redis unreachable");
    } finally {
      await t.close();
    }
  });
});

// Issue 31 item 6: with an unreachable SMTP_URL, 9 134 mails sat unsent with no metric and no alert.
describe("/metrics of the background jobs, with an unreachable SMTP server", () => {
  it("shows each job's backlog and its oldest item's age, and counts failed sends and failed passes per job", async () => {
    const closed = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const t = await buildTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${closed}` } });
    try {
      let text = await scrape(t);
      for (const name of ["mail", "receipts", "refund-reconciler", "webhook-delivery", "housekeeping"]) {
        for (const kind of ["pass", "item"]) expect(sample(text, "background_job_failures_total", { name, kind }), `${name} ${kind}`).toBe(0);
      }
      for (const name of ["mail", "receipts", "refund-reconciler"]) {
        expect(sample(text, "background_job_backlog_items", { name })).toBe(0);
        expect(sample(text, "background_job_backlog_oldest_age_seconds", { name })).toBe(0);
      }

      await withTransaction(t.deps.database.db, (tx) =>
        queueMails(tx, t.clock.now(), [1, 2, 3].map((n) => ({ to: `buyer${n}@example.com`, subject: "Your receipt", text: "Thanks" }))),
      );
      await t.app.jobs.trigger("mail");
      t.clock.advance(600_000);
      text = await scrape(t);
      expect(sample(text, "background_job_failures_total", { name: "mail", kind: "item" })).toBe(3);
      expect(sample(text, "background_job_failures_total", { name: "mail", kind: "pass" })).toBe(0);
      expect(sample(text, "background_job_backlog_items", { name: "mail" })).toBe(3);
      expect(sample(text, "background_job_backlog_oldest_age_seconds", { name: "mail" })).toBe(600);

      // A pass that fails as a whole (its claim refused by the database) counts as kind="pass".
      const db = t.deps.database.db;
      await db.execute(sql.raw(`create function test_refuse() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`));
      await db.execute(sql.raw(`create trigger test_refuse before update on mail_outbox for each statement execute function test_refuse()`));
      try {
        expect(await t.app.jobs.trigger("mail")).toBe(false);
      } finally {
        await db.execute(sql.raw(`drop trigger test_refuse on mail_outbox`));
      }
      text = await scrape(t);
      expect(sample(text, "background_job_failures_total", { name: "mail", kind: "pass" })).toBe(1);
      expect(sample(text, "background_job_failures_total", { name: "mail", kind: "item" })).toBe(3);
    } finally {
      await t.close();
    }
  });
});
