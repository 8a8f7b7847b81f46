// The real hosted store adapter against a fake of the store's Admin API at the network boundary:
// initialize → the buyer pays on the invoice page → complete-checkout → complete → one-click upsell;
// an unpaid draft is 409, a failed payment 402, a failing store 502 with nothing written.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { registerOwner } from "../../../test/support/admin.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { call } from "../../../test/support/identity.js";
import { post } from "../../../test/support/provider-payments.js";
import { orders, paymentDeclines, refunds } from "../../db/schema/index.js";
import { startFakeHostedStore, type FakeHostedStore } from "./fake-server.js";
import { bearer, createApiKey } from "../../../test/support/merchant.js";
import { repeatRefund } from "../../../test/support/refunds.js";

let t: TestApp;
let apiKey: string;
const merchantPost = (url: string, payload: unknown) => post(t, url, payload, { headers: bearer(apiKey) });
let fake: FakeHostedStore;
let session: string;
let brandId: string;
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeHostedStore()]);
  ({ session, brandId } = await registerOwner(t));
  // CONTRACT §35: the money paths of a real-money order need the brand's API key.
  apiKey = (await createApiKey(t, session, { mode: "live" })).secret;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const AMOUNT = 3000;
const configure = () =>
  call(t, "POST", "/api/admin/settings", { session, body: { provider: "hosted_store", settings: { shopDomain: "fake-shop.myshopify.com", accessToken: fake.accessToken, baseUrl: fake.baseUrl } } });
async function initialize() {
  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId, productName: "Hosted product" });
  const res = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "hosted_store", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
  expect(res.statusCode, res.body).toBe(200);
  return { orderId: claims.orderId as string, storeOrderId: json(res).providerOrderId as string, checkoutUrl: json(res).checkoutUrl as string };
}
const completeCheckout = (storeOrderId: string, orderId: string) => post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId, orderId });
const complete = (orderId: string, transactionId: string, storeOrderId: string) =>
  post(t, "/api/checkout/complete", { orderId, transactionId, providerOrderId: storeOrderId, provider: "hosted_store", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
const ordersOf = (orderId: string) => t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId));

describe("hosted_store with settings", () => {
  it("is demo until the settings are stored, then creates draft orders at the store", async () => {
    const demo = await initialize();
    expect(demo.checkoutUrl).toContain("/demo/hosted-store/");
    expect((await configure()).statusCode).toBe(200);
    const real = await initialize();
    expect(real.checkoutUrl).toBe(`${fake.baseUrl}/invoices/${real.storeOrderId}`);
    const sent = fake.requests.at(-1)!;
    expect(sent.headers["x-shopify-access-token"]).toBe(fake.accessToken);
    expect(sent.json.draft_order).toMatchObject({ line_items: [{ title: "Hosted product", price: "30.00", quantity: 1 }], email: "ada@example.com", note_attributes: [{ name: "orderId", value: real.orderId }] });
  });

  it("runs initialize → pay on the store → complete-checkout → complete → one-click upsell", async () => {
    const { orderId, storeOrderId } = await initialize();
    fake.pay(storeOrderId);
    const paid = await completeCheckout(storeOrderId, orderId);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(json(paid)).toMatchObject({ success: true, storeOrderId, orderId, paymentMethodToken: storeOrderId, status: "paid", demo: false });

    const done = await complete(orderId, json(paid).transactionId, storeOrderId);
    expect(done.statusCode, done.body).toBe(200);
    expect(json(done).paymentMethodToken).toBe(storeOrderId);
    expect(await ordersOf(orderId)).toHaveLength(1);

    const confirmed = await post(t, "/api/providers/hosted_store/confirm-order", { storeOrderId, orderId });
    expect(json(confirmed)).toMatchObject({ success: true, status: "confirmed", demo: false });

    const created = await merchantPost("/api/upsell/create-session", {
      orderId: `${orderId}-up`,
      originalOrderId: orderId,
      customerEmail: "ada@example.com",
      paymentMethodToken: storeOrderId,
      provider: "hosted_store",
      offers: [{ id: "a", name: "Offer a", price: 700 }],
    });
    expect(created.statusCode, created.body).toBe(200);
    const accepted = await post(t, "/api/upsell/accept", { sessionId: json(created).sessionId, offerId: "a" });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(json(accepted).transactionId).toMatch(/^pref_/);
    const mutation = fake.requests.at(-1)!;
    expect(mutation.json.variables).toMatchObject({ id: `gid://shopify/Order/${fake.drafts.get(storeOrderId)!.order_id}`, amount: { amount: "7.00", currencyCode: "USD" } });

    fake.declineMandates = true;
    try {
      const again = await merchantPost("/api/upsell/create-session", {
        orderId: `${orderId}-up2`,
        originalOrderId: orderId,
        customerEmail: "ada@example.com",
        paymentMethodToken: storeOrderId,
        provider: "hosted_store",
        offers: [{ id: "a", name: "Offer a", price: 700 }],
      });
      const declined = await post(t, "/api/upsell/accept", { sessionId: json(again).sessionId, offerId: "a" });
      expect(declined.statusCode).toBe(402);
      expect(json(declined).details).toBe("payment_declined");
    } finally {
      fake.declineMandates = false;
    }
  });

  it("answers 409 for a draft not paid yet, and 404 for another order's draft", async () => {
    const { orderId, storeOrderId } = await initialize();
    const unpaid = await completeCheckout(storeOrderId, orderId);
    expect(unpaid.statusCode).toBe(409);
    expect(json(unpaid).error).toBe("Order is not paid");
    const other = await completeCheckout(storeOrderId, "another-order");
    expect(other.statusCode).toBe(404);
  });

  it("answers a failed store payment with 402 and counts the decline", async () => {
    const { orderId, storeOrderId } = await initialize();
    fake.pay(storeOrderId, "failure");
    const res = await completeCheckout(storeOrderId, orderId);
    expect(res.statusCode).toBe(402);
    expect(await t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId))).toHaveLength(1);
  });

  it.each(["500", "garbage"] as const)("answers 502 PROVIDER_ERROR when the store answers %s, writing nothing", async (mode) => {
    const { orderId, storeOrderId } = await initialize();
    fake.pay(storeOrderId);
    fake.failNext = mode;
    const paid = await completeCheckout(storeOrderId, orderId);
    expect(paid.statusCode).toBe(502);
    expect(json(paid)).toMatchObject({ error: "Payment provider hosted_store failed", code: "PROVIDER_ERROR" });
    const transactionId = json(await completeCheckout(storeOrderId, orderId)).transactionId as string;
    fake.failNext = mode;
    const done = await complete(orderId, transactionId, storeOrderId);
    expect(done.statusCode).toBe(502);
    expect(await ordersOf(orderId)).toHaveLength(0);
  });
});

describe("hosted_store refunds", () => {
  beforeAll(async () => {
    expect((await configure()).statusCode).toBe(200);
  });
  const refundVia = (orderRef: string, body: Record<string, unknown>) => call(t, "POST", `/api/admin/orders/${orderRef}/refunds`, { session, body });
  const refundPosts = () => fake.requests.filter((r) => r.method === "POST" && r.path.endsWith("/refunds.json"));
  const refundRowsOf = (orderRef: string) => t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, orderRef));
  /** A checkout paid on the store's page and completed: our order row, the sale's id and the store order's id. */
  async function paidOrder() {
    const { orderId, storeOrderId } = await initialize();
    fake.pay(storeOrderId);
    const transactionId = json(await completeCheckout(storeOrderId, orderId)).transactionId as string;
    expect((await complete(orderId, transactionId, storeOrderId)).statusCode).toBe(200);
    const [order] = await ordersOf(orderId);
    return { order: order!, transactionId, storeOrderId, shopOrderId: String(fake.drafts.get(storeOrderId)!.order_id) };
  }

  it("refunds part of the sale with a refund transaction and our refund id in the note, then the rest", async () => {
    const { order, transactionId, shopOrderId } = await paidOrder();
    const part = await refundVia(order.id, { amount: 1000, reason: "requested_by_customer" });
    expect(part.statusCode, part.body).toBe(200);
    const first = json(part).refund;
    expect(first).toMatchObject({ amount: 1000, status: "succeeded", providerRefundId: expect.stringMatching(/^\d+$/) });
    expect(refundPosts().at(-1)).toMatchObject({
      path: `/admin/api/2024-10/orders/${shopOrderId}/refunds.json`,
      json: { refund: { note: `refund ${first.id}`, notify: false, currency: "USD", transactions: [{ parent_id: Number(transactionId), amount: "10.00", kind: "refund", gateway: "shopify_payments" }] } },
    });
    expect(json(await refundVia(order.id, { reason: "other" })).refund).toMatchObject({ amount: AMOUNT - 1000, status: "succeeded" });
    expect(fake.refunds.get(shopOrderId)!.map((r) => r.transactions[0].amount)).toEqual(["10.00", "20.00"]);
  });

  it("refunds an upsell's mandate payment on the same store order", async () => {
    const { order, storeOrderId, shopOrderId } = await paidOrder();
    const created = await merchantPost("/api/upsell/create-session", {
      orderId: `${order.orderId}-up`,
      originalOrderId: order.orderId,
      customerEmail: "ada@example.com",
      paymentMethodToken: storeOrderId,
      provider: "hosted_store",
      offers: [{ id: "a", name: "Offer a", price: 700 }],
    });
    const accepted = await post(t, "/api/upsell/accept", { sessionId: json(created).sessionId, offerId: "a" });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const res = await refundVia(order.id, { charge: `${order.orderId}-up`, reason: "other" });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).refund).toMatchObject({ amount: 700, status: "succeeded" });
    expect(fake.refunds.get(shopOrderId)![0].transactions[0]).toMatchObject({ amount: "7.00", status: "success" });
  });

  it("a refund the store fails is 402 REFUND_FAILED; more than the store has left is refused the same way", async () => {
    const declined = await paidOrder();
    fake.declineRefunds = true;
    try {
      const res = await refundVia(declined.order.id, { amount: 500, reason: "fraudulent" });
      expect(res.statusCode).toBe(402);
      expect(json(res)).toMatchObject({ error: "Refund failed: refund_declined", code: "REFUND_FAILED", details: "refund_declined" });
    } finally {
      fake.declineRefunds = false;
    }
    expect((await ordersOf(declined.order.orderId))[0]!.refundedCents).toBe(0);

    // The merchant refunded part in the store's own admin, which our books do not know.
    const elsewhere = await paidOrder();
    const atStore = await fetch(`${fake.baseUrl}/admin/api/2024-10/orders/${elsewhere.shopOrderId}/refunds.json`, {
      method: "POST",
      headers: { "x-shopify-access-token": fake.accessToken, "content-type": "application/json" },
      body: JSON.stringify({ refund: { transactions: [{ parent_id: Number(elsewhere.transactionId), amount: "5.00", kind: "refund" }] } }),
    });
    expect(atStore.status).toBe(201);
    const refused = await refundVia(elsewhere.order.id, { reason: "other" });
    expect(refused.statusCode).toBe(402);
    expect(json(refused).details).toBe("refund_refused");
  });

  it("a refund asked again with its id (the reconciler's repeat) is found by its note and answered again; nothing is sent twice", async () => {
    const { order, shopOrderId } = await paidOrder();
    const first = json(await refundVia(order.id, { amount: 800, reason: "other" })).refund;
    const posts = refundPosts().length;
    expect(await repeatRefund(t, first.id)).toEqual({ status: "succeeded", providerRefundId: first.providerRefundId });
    expect(refundPosts()).toHaveLength(posts);
    expect(fake.refunds.get(shopOrderId)).toHaveLength(1);

    const declined = await paidOrder();
    fake.declineRefunds = true;
    try {
      expect((await refundVia(declined.order.id, { amount: 100, reason: "other" })).statusCode).toBe(402);
    } finally {
      fake.declineRefunds = false;
    }
    const [row] = await refundRowsOf(declined.order.id);
    expect(await repeatRefund(t, row!.id)).toEqual({ status: "failed", reason: "refund_declined" });
    expect(fake.refunds.get(declined.shopOrderId)).toHaveLength(1);
  });

  it("a failing store is 502: the refund stays pending, holding its amount, until the repeat makes it once", async () => {
    const { order, shopOrderId } = await paidOrder();
    fake.failNext = "500";
    expect((await refundVia(order.id, { amount: 2000, reason: "other" })).statusCode).toBe(502);
    const [pending] = await refundRowsOf(order.id);
    expect(pending).toMatchObject({ status: "pending", amountCents: 2000 });
    const made = await repeatRefund(t, pending!.id);
    expect(made).toEqual({ status: "succeeded", providerRefundId: expect.stringMatching(/^\d+$/) });
    expect(await repeatRefund(t, pending!.id)).toEqual(made);
    expect(fake.refunds.get(shopOrderId)!.map((r) => r.transactions[0].amount)).toEqual(["20.00"]);
  });
});
