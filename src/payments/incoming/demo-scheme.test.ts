// Incoming provider notifications at /api/webhooks/<provider> with the demo scheme: good, wrong,
// missing and replayed signatures, stale timestamps, malformed bodies (400, never 500), dedupe by the
// provider's event id, the six providers (others 404), and the checkout's and order's payment status.
import { createHmac } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, TEST_TOKEN_SECRET, type TestApp } from "../../../test/support/app.js";
import { completeCheckoutViaApi } from "../../../test/support/completed-checkout.js";
import { checkouts, incomingWebhookEvents, orders } from "../../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
let counter = 0;
const eventId = () => `evt_provider_${++counter}_${Date.now()}`;

/** Signs as docs/webhooks.md tells a (demo) provider to: hex HMAC-SHA256 of "<timestamp>.<body>". */
function signed(body: string, options: { secret?: string; timestamp?: number } = {}) {
  const timestamp = options.timestamp ?? Math.floor(t.clock.now() / 1000);
  const signature = createHmac("sha256", options.secret ?? TEST_TOKEN_SECRET).update(`${timestamp}.${body}`).digest("hex");
  return { "x-demo-timestamp": String(timestamp), "x-demo-signature": `v1=${signature}` };
}

const notify = (provider: string, body: string, headers: Record<string, string>) =>
  t.app.inject({ method: "POST", url: `/api/webhooks/${provider}`, payload: body, headers: { "content-type": "application/json", ...headers } });

describe("POST /api/webhooks/<provider>", () => {
  it("verifies, stores and applies a payment.refunded notification; a repeat of its event id changes nothing", async () => {
    const { orderId } = await completeCheckoutViaApi(t);
    const body = JSON.stringify({ id: eventId(), type: "payment.refunded", data: { orderId } });
    const res = await notify("vault_gateway_a", body, signed(body));
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ received: true, duplicate: false, outcome: "applied" });
    const [checkout] = await db().select().from(checkouts).where(eq(checkouts.orderId, orderId));
    expect(checkout.paymentStatus).toBe("refunded");
    const [order] = await db().select().from(orders).where(eq(orders.checkoutId, checkout.id));
    expect(order.paymentStatus).toBe("refunded");

    // The same event again (a provider retry, or a replay within the window): acknowledged, not applied twice.
    await db().update(checkouts).set({ paymentStatus: "succeeded" }).where(eq(checkouts.id, checkout.id));
    const again = await notify("vault_gateway_a", body, signed(body));
    expect(again.statusCode).toBe(200);
    expect(json(again)).toEqual({ received: true, duplicate: true, outcome: "duplicate" });
    expect((await db().select().from(checkouts).where(eq(checkouts.id, checkout.id)))[0].paymentStatus).toBe("succeeded");
    expect(await db().select().from(incomingWebhookEvents).where(eq(incomingWebhookEvents.orderId, orderId))).toHaveLength(1);
  });

  it("stores a notification for an unknown order as unmatched and still answers 200", async () => {
    const id = eventId();
    const body = JSON.stringify({ id, type: "payment.failed", data: { orderId: "no-such-order", reason: "card_declined" } });
    const res = await notify("intent_gateway", body, signed(body));
    expect(res.statusCode).toBe(200);
    expect(json(res).outcome).toBe("unmatched");
    const [row] = await db().select().from(incomingWebhookEvents).where(eq(incomingWebhookEvents.providerEventId, id));
    expect(row).toMatchObject({ provider: "intent_gateway", type: "payment.failed", outcome: "unmatched", brandId: null });
  });

  it("answers 400 for a missing, wrong or other-key signature and for a tampered body, storing nothing", async () => {
    const id = eventId();
    const body = JSON.stringify({ id, type: "payment.succeeded", data: { orderId: "o-1" } });
    const good = signed(body);
    const cases: [string, Record<string, string>, string][] = [
      [body, {}, "Missing webhook signature"],
      [body, { "x-demo-timestamp": good["x-demo-timestamp"] }, "Missing webhook signature"],
      [body, { ...good, "x-demo-signature": "v1=" + "0".repeat(64) }, "Invalid webhook signature"],
      [body, signed(body, { secret: "another-secret-that-is-long-enough-000" }), "Invalid webhook signature"],
      [body.replace("o-1", "o-2"), good, "Invalid webhook signature"],
      [body, { ...good, "x-demo-timestamp": "soon" }, "Invalid webhook timestamp"],
    ];
    for (const [payload, headers, error] of cases) {
      const res = await notify("order_crm_a", payload, headers);
      expect(res.statusCode, error).toBe(400);
      expect(json(res).error).toBe(error);
    }
    expect(await db().select().from(incomingWebhookEvents).where(eq(incomingWebhookEvents.providerEventId, id))).toHaveLength(0);
  });

  it("refuses a replay outside the 5-minute tolerance (old or future timestamps), even correctly signed", async () => {
    const body = JSON.stringify({ id: eventId(), type: "payment.succeeded", data: { orderId: "o-1" } });
    const now = Math.floor(t.clock.now() / 1000);
    for (const timestamp of [now - 301, now + 301]) {
      const res = await notify("hosted_store", body, signed(body, { timestamp }));
      expect(res.statusCode).toBe(400);
      expect(json(res).error).toBe("Webhook timestamp outside the 5-minute tolerance");
    }
    // Signed 4 minutes ago, then the clock moves: inside, then outside the window.
    const fresh = signed(body, { timestamp: now - 240 });
    expect((await notify("hosted_store", body, fresh)).statusCode).toBe(200);
    t.clock.advance(120_000);
    const replay = await notify("hosted_store", body, fresh);
    expect(replay.statusCode).toBe(400);
  });

  it("answers 400, never 500, for malformed JSON or an unexpected shape (signed)", async () => {
    for (const body of ["{not json", "[]", JSON.stringify({ id: "x", type: "payment.exploded", data: { orderId: "o" } }), JSON.stringify({ id: "x", type: "payment.succeeded" })]) {
      const res = await notify("cart_gateway", body, signed(body));
      expect(res.statusCode, body).toBe(400);
    }
  });

  it("serves every provider of the manifest, vault_gateway_b included (issue 14): others are 404", async () => {
    const body = JSON.stringify({ id: eventId(), type: "payment.succeeded", data: { orderId: "o-1" } });
    for (const provider of ["nope", "__proto__"]) {
      expect((await notify(provider, body, signed(body))).statusCode, provider).toBe(404);
    }
    for (const provider of ["intent_gateway", "order_crm_a", "hosted_store", "order_crm_b", "vault_gateway_a", "cart_gateway", "vault_gateway_b"]) {
      const b2 = JSON.stringify({ id: eventId(), type: "payment.succeeded", data: { orderId: "o-1" } });
      expect((await notify(provider, b2, signed(b2))).statusCode, provider).toBe(200);
    }
  });
});

describe("live mode", () => {
  it("refuses demo-signed notifications (400), since the demo scheme is off", async () => {
    const live = await buildTestApp({ env: { PAYMENT_MODE: "live" } });
    try {
      const body = JSON.stringify({ id: "evt_live", type: "payment.succeeded", data: { orderId: "o-1" } });
      const timestamp = Math.floor(live.clock.now() / 1000);
      const signature = createHmac("sha256", TEST_TOKEN_SECRET).update(`${timestamp}.${body}`).digest("hex");
      const res = await live.app.inject({ method: "POST", url: "/api/webhooks/intent_gateway", payload: body, headers: { "content-type": "application/json", "x-demo-timestamp": String(timestamp), "x-demo-signature": `v1=${signature}` } });
      expect(res.statusCode).toBe(400);
      expect(json(res).error).toBe("Missing webhook signature");
    } finally {
      await live.close();
    }
  });
});
