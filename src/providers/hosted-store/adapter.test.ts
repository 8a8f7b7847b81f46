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
import { orders, paymentDeclines } from "../../db/schema/index.js";
import { startFakeHostedStore, type FakeHostedStore } from "./fake-server.js";
import { bearer, createApiKey } from "../../../test/support/merchant.js";

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
  apiKey = (await createApiKey(t, session)).secret;
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
    expect(json(paid)).toEqual({ error: "Payment provider hosted_store failed", code: "PROVIDER_ERROR" });
    const transactionId = json(await completeCheckout(storeOrderId, orderId)).transactionId as string;
    fake.failNext = mode;
    const done = await complete(orderId, transactionId, storeOrderId);
    expect(done.statusCode).toBe(502);
    expect(await ordersOf(orderId)).toHaveLength(0);
  });
});
