// Outgoing webhooks end to end against a real receiver: fan-out of a checkout's events to subscribed
// endpoints, Standard Webhooks signatures, custom headers, the token's webhookUrl, retries on a moved
// clock (Retry-After, 410, final failure, 5 days failing), resend, the test operation and the stats.
import { and, eq, isNull } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, TEST_TOKEN_SECRET, type TestApp } from "../../test/support/app.js";
import { adminCall, registerOwner } from "../../test/support/admin.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { startReceiver, type Receiver } from "../../test/support/webhook-receiver.js";
import { auditLogs, outboxEvents, webhookDeliveries, webhookEndpoints } from "../db/schema/index.js";
import { ManualClock } from "../lib/clock.js";
import { enqueueEvents } from "../outbox/events.js";

let t: TestApp;
let owner: Awaited<ReturnType<typeof registerOwner>>;
let receiver: Receiver;
beforeAll(async () => {
  // The standardwebhooks verifier checks the timestamp against the real time: start the clock there.
  t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true", SESSION_IDLE_MINUTES: "10000000", SESSION_MAX_HOURS: "100000" }, clock: new ManualClock(Date.now()) });
  owner = await registerOwner(t, "Hooks shop");
});
afterAll(() => t.close());
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());
afterEach(async () => {
  // Each test starts with no endpoint and nothing left to deliver.
  await t.app.webhookWorker.deliverDue();
  await t.deps.database.db.update(webhookEndpoints).set({ deletedAt: new Date(t.clock.now()), enabled: false });
  await t.deps.database.db.update(webhookDeliveries).set({ status: "failed" }).where(eq(webhookDeliveries.status, "pending"));
  receiver.received.length = 0;
  receiver.answer = { status: 200 };
  t.clock.set(Date.now());
});

const db = () => t.deps.database.db;
async function addEndpoint(body: Record<string, unknown>) {
  const res = await adminCall(t, "POST", "/api/admin/webhooks", { session: owner.session, body: { name: "Receiver", url: `${receiver.url}/hook`, ...body } });
  expect(res.statusCode, res.body).toBe(200);
  return json(res) as { id: string; secret: string };
}
const checkoutOfBrand = (claims: Record<string, unknown> = {}) => completeCheckoutViaApi(t, { claims: { brandId: owner.brandId, ...claims } });
const types = (received = receiver.received) => received.map((r) => JSON.parse(r.body).type).sort();

describe("delivery of a checkout's events", () => {
  it("sends checkout.created, checkout.completed, payment.succeeded and order.confirmed to a `*` endpoint, each verifiable with the endpoint secret", async () => {
    const endpoint = await addEndpoint({ events: ["*"] });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const { orderId } = await checkoutOfBrand();
    await t.app.webhookWorker.deliverDue();

    expect(types()).toEqual(["checkout.completed", "checkout.created", "order.confirmed", "payment.succeeded"]);
    const verifier = new Webhook(endpoint.secret);
    for (const request of receiver.received) {
      expect(request.path).toBe("/hook");
      expect(request.headers["content-type"]).toBe("application/json");
      const payload = verifier.verify(request.body, request.headers as Record<string, string>) as { type: string; timestamp: string; data: Record<string, unknown> };
      expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(JSON.stringify(payload.data)).toContain(orderId);
      // Issue 21: paid with a demo adapter's card, so not live.
      expect(payload.data.livemode, payload.type).toBe(false);
      expect(request.headers["webhook-id"]).toMatch(/^msg_/);
    }
    // A wrong secret does not verify.
    expect(() => new Webhook("whsec_" + Buffer.alloc(24, 1).toString("base64")).verify(receiver.received[0].body, receiver.received[0].headers as Record<string, string>)).toThrow();
    // Every outbox row is dispatched, every delivery succeeded.
    expect(await db().select().from(outboxEvents).where(isNull(outboxEvents.dispatchedAt))).toHaveLength(0);
    const rows = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(rows.map((r) => r.status)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
  });

  it("sends only the subscribed events to a filtered endpoint, with its custom headers", async () => {
    const endpoint = await addEndpoint({ events: ["payment.succeeded", "order.confirmed"], headers: { "X-Shop-Token": "abc123", Authorization: "Bearer shop" } });
    await checkoutOfBrand();
    await t.app.webhookWorker.deliverDue();
    expect(types()).toEqual(["order.confirmed", "payment.succeeded"]);
    for (const request of receiver.received) {
      expect(request.headers["x-shop-token"]).toBe("abc123");
      expect(request.headers.authorization).toBe("Bearer shop");
    }
    expect(endpoint.id).toMatch(/^whe_/);
  });

  it("uses a plain secret's UTF-8 bytes as the key (CONTRACT §29)", async () => {
    const secret = "plain-secret-of-the-shop";
    await addEndpoint({ events: ["checkout.created"], secret });
    await checkoutOfBrand();
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toHaveLength(1);
    const verifier = new Webhook(new TextEncoder().encode(secret), { format: "raw" });
    expect((verifier.verify(receiver.received[0].body, receiver.received[0].headers as Record<string, string>) as { type: string }).type).toBe("checkout.created");
  });

  it("sends nothing to a disabled endpoint or another brand's endpoint", async () => {
    await addEndpoint({ events: ["*"], enabled: false });
    const other = await registerOwner(t, "Other shop");
    const res = await adminCall(t, "POST", "/api/admin/webhooks", { session: other.session, body: { url: `${receiver.url}/other`, events: ["*"] } });
    expect(res.statusCode).toBe(200);
    await checkoutOfBrand();
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toHaveLength(0);
  });

  it("sends the checkout's events to the token's webhookUrl, signed with CHECKOUT_TOKEN_SECRET's bytes", async () => {
    await checkoutOfBrand({ webhookUrl: `${receiver.url}/token-hook` });
    await t.app.webhookWorker.deliverDue();
    expect(types()).toEqual(["checkout.completed", "checkout.created", "order.confirmed", "payment.succeeded"]);
    const verifier = new Webhook(new TextEncoder().encode(TEST_TOKEN_SECRET), { format: "raw" });
    for (const request of receiver.received) {
      expect(request.path).toBe("/token-hook");
      verifier.verify(request.body, request.headers as Record<string, string>);
    }
  });
});

describe("retries", () => {
  it("retries a failed send after a longer Retry-After, then on the schedule, with the same webhook-id, until it succeeds", async () => {
    const endpoint = await addEndpoint({ events: ["checkout.created"] });
    receiver.answer = { status: 503, headers: { "retry-after": "60" } };
    await checkoutOfBrand();
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toHaveLength(1);
    const [delivery] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(delivery.nextAttemptAt.getTime() - t.clock.now()).toBe(60_000);

    t.clock.advance(59_999);
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toHaveLength(1);

    receiver.answer = { status: 500 };
    t.clock.advance(1);
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toHaveLength(2);
    // Second retry: 5 minutes plus up to 20 % jitter.
    t.clock.advance(5 * 60_000 - 1);
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toHaveLength(2);

    receiver.answer = { status: 204 };
    t.clock.advance(60_001 + 1);
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((r) => r.headers["webhook-id"])).size).toBe(1);

    const listed = json(await adminCall(t, "GET", `/api/admin/webhooks/${endpoint.id}/deliveries`, { session: owner.session }));
    expect(listed.deliveries).toHaveLength(1);
    expect(listed.deliveries[0]).toMatchObject({ id: receiver.received[0].headers["webhook-id"], status: "succeeded", attempts: 3, lastStatusCode: 204, nextAttemptAt: null });
    expect(listed.deliveries[0].attemptLog.map((a: { statusCode: number; success: boolean }) => [a.statusCode, a.success])).toEqual([
      [503, false],
      [500, false],
      [204, true],
    ]);
    expect(listed.deliveries[0].attemptLog[0]).toMatchObject({ attempt: 1, error: "HTTP 503", durationMs: expect.any(Number) });
    expect(listed.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
  });

  it("treats a redirect as a failure and does not follow it", async () => {
    const endpoint = await addEndpoint({ events: ["checkout.created"] });
    receiver.answer = (request) => (request.path === "/hook" ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } } : { status: 200 });
    await checkoutOfBrand();
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received.map((r) => r.path)).toEqual(["/hook"]);
    const [delivery] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(delivery).toMatchObject({ status: "pending", lastStatusCode: 302, lastError: "redirect 302 not followed" });
    // CONTRACT §33: the first retry comes 5 to 10 s after the failure.
    const wait = delivery.nextAttemptAt.getTime() - t.clock.now();
    expect(wait).toBeGreaterThanOrEqual(5_000);
    expect(wait).toBeLessThanOrEqual(10_000);
  });

  it("keeps retrying for more than 72 hours, then marks the delivery failed and keeps it; resend sends it again with the same id", async () => {
    const endpoint = await addEndpoint({ events: ["checkout.created"] });
    receiver.answer = { status: 500 };
    const started = t.clock.now();
    await checkoutOfBrand();
    await t.app.webhookWorker.deliverDue();
    // Jump to each scheduled retry.
    for (let i = 0; i < 20; i++) {
      const [pending] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
      if (pending.status !== "pending") break;
      t.clock.set(pending.nextAttemptAt.getTime());
      await t.app.webhookWorker.deliverDue();
    }
    const [delivery] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpoint.id));
    expect(delivery.status).toBe("failed");
    expect(delivery.attempts).toBe(10);
    expect(receiver.received).toHaveLength(10);
    expect(delivery.completedAt!.getTime() - started).toBeGreaterThanOrEqual(72 * 3_600_000);

    receiver.answer = { status: 200 };
    const resent = await adminCall(t, "POST", `/api/admin/webhooks/deliveries/${delivery.id}/resend`, { session: owner.session });
    expect(resent.statusCode, resent.body).toBe(200);
    expect(json(resent)).toMatchObject({ success: true, delivered: true, delivery: { id: delivery.id, status: "succeeded" } });
    expect(receiver.received).toHaveLength(11);
    expect(receiver.received[10].headers["webhook-id"]).toBe(delivery.id);
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.action, "webhook_delivery.resend"), eq(auditLogs.resourceId, delivery.id)))).toHaveLength(1);
  });

  it("disables the endpoint on 410 Gone, audits it, and sends it nothing more", async () => {
    const endpoint = await addEndpoint({ events: ["*"] });
    receiver.answer = { status: 410 };
    await checkoutOfBrand();
    await t.app.webhookWorker.deliverDue();
    const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row).toMatchObject({ enabled: false, disabledReason: "gone" });
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.action, "webhook_endpoint.disable"), eq(auditLogs.resourceId, endpoint.id)))).toHaveLength(1);
    const sent = receiver.received.length;
    await checkoutOfBrand();
    t.clock.advance(3_600_000);
    await t.app.webhookWorker.deliverDue();
    expect(receiver.received).toHaveLength(sent);
    const listed = json(await adminCall(t, "GET", "/api/admin/webhooks", { session: owner.session }));
    expect(listed.endpoints.find((e: { id: string }) => e.id === endpoint.id)).toMatchObject({ enabled: false, disabledReason: "gone" });
  });

  it("disables and audits an endpoint whose deliveries have failed for 5 days", async () => {
    const endpoint = await addEndpoint({ events: ["checkout.created"] });
    receiver.answer = { status: 500 };
    for (let day = 0; day <= 5; day++) {
      await checkoutOfBrand();
      await t.app.webhookWorker.deliverDue();
      t.clock.advance(24 * 3_600_000 + 1);
    }
    await checkoutOfBrand();
    await t.app.webhookWorker.deliverDue();
    const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row).toMatchObject({ enabled: false, disabledReason: "failing" });
    const audits = await db().select().from(auditLogs).where(and(eq(auditLogs.action, "webhook_endpoint.disable"), eq(auditLogs.resourceId, endpoint.id)));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ actorType: "system", organizationId: owner.organizationId, brandId: owner.brandId });
  });
});

describe("the test operation and the stats", () => {
  it("sends a signed webhook.test payload now and reports the attempt; stats count deliveries and the success rate", async () => {
    const endpoint = await addEndpoint({ events: ["payment.failed"], headers: { "X-Env": "staging" } });
    const res = await adminCall(t, "POST", `/api/admin/webhooks/${endpoint.id}/test`, { session: owner.session });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ success: true, delivered: true, delivery: { status: "succeeded", eventType: "webhook.test", attempts: 1, lastStatusCode: 200 } });
    expect(receiver.received).toHaveLength(1);
    const payload = new Webhook(endpoint.secret).verify(receiver.received[0].body, receiver.received[0].headers as Record<string, string>) as { type: string };
    expect(payload.type).toBe("webhook.test");
    expect(receiver.received[0].headers["x-env"]).toBe("staging");

    receiver.answer = { status: 500 };
    const failed = json(await adminCall(t, "POST", `/api/admin/webhooks/${endpoint.id}/test`, { session: owner.session }));
    expect(failed).toMatchObject({ success: true, delivered: false, delivery: { lastStatusCode: 500, lastError: "HTTP 500" } });

    // The failed test is pending a retry; once it fails for good, stats are 1 of 2 finished.
    await db().update(webhookDeliveries).set({ status: "failed" }).where(eq(webhookDeliveries.id, failed.delivery.id));
    const listed = json(await adminCall(t, "GET", "/api/admin/webhooks", { session: owner.session }));
    const view = listed.endpoints.find((e: { id: string }) => e.id === endpoint.id);
    expect(view.stats).toEqual({ totalDeliveries: 2, successRate: 50 });
    expect(listed.stats.totalDeliveries).toBeGreaterThanOrEqual(2);
  });
});

describe("events written by the business transactions", () => {
  it("fans out upsell and payment events the same way (one delivery per subscribed endpoint, the outbox row marked dispatched)", async () => {
    await addEndpoint({ events: ["upsell.accepted", "payment.failed"] });
    await enqueueEvents(db(), t.clock.now(), [
      { brandId: owner.brandId, type: "upsell.accepted", data: { sessionId: "s1" } as never },
      { brandId: owner.brandId, type: "upsell.declined", data: { sessionId: "s1" } as never },
      { brandId: owner.brandId, type: "payment.failed", data: { orderId: "o1", reason: "card_declined" } as never },
    ]);
    const round = await t.app.webhookWorker.deliverDue();
    expect(round.events).toBe(3);
    expect(types()).toEqual(["payment.failed", "upsell.accepted"]);
  });
});
