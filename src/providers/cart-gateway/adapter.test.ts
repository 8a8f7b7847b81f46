// The real cart gateway adapter against a fake cart API at the network boundary: initialize →
// process-payment → complete (recorded in the same CRM) → one-click upsell; declines 402; a
// failing API 502 with nothing written; test-crm leaves demo mode.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { registerOwner } from "../../../test/support/admin.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { call } from "../../../test/support/identity.js";
import { completionBody, CRM_BUYER } from "../../../test/support/completed-checkout.js";
import { card, post } from "../../../test/support/provider-payments.js";
import { orderCharges, orders, paymentDeclines, refunds } from "../../db/schema/index.js";
import { startFakeCartGateway, type FakeCartGateway } from "./fake-server.js";
import { bearer, createApiKey } from "../../../test/support/merchant.js";
import { repeatRefund } from "../../../test/support/refunds.js";

let t: TestApp;
let apiKey: string;
const merchantPost = (url: string, payload: unknown) => post(t, url, payload, { headers: bearer(apiKey) });
let fake: FakeCartGateway;
let session: string;
let brandId: string;
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeCartGateway()]);
  ({ session, brandId } = await registerOwner(t));
  // CONTRACT §35: the money paths of a real-money order need the brand's API key.
  apiKey = (await createApiKey(t, session, { mode: "live" })).secret;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const AMOUNT = 4200;
const configure = () => call(t, "POST", "/api/admin/settings", { session, body: { provider: "cart_gateway", settings: { apiKey: fake.apiKey, baseUrl: fake.baseUrl } } });
async function initialize() {
  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId });
  const res = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "cart_gateway" });
  expect(res.statusCode, res.body).toBe(200);
  return { orderId: claims.orderId as string, cartOrderId: json(res).providerOrderId as string };
}
const pay = (cartOrderId: string, orderId: string, cardNumber?: string) => post(t, "/api/providers/cart_gateway/process-payment", { cartOrderId, orderId, ...card(cardNumber) });
const complete = (orderId: string, transactionId: string) =>
  post(t, "/api/checkout/complete", completionBody({ orderId, transactionId, provider: "cart_gateway", amount: AMOUNT }, { ...CRM_BUYER, recordInCrm: true }));
const ordersOf = (orderId: string) => t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId));

async function upsell(orderId: string, paymentMethodToken: string) {
  const created = await merchantPost("/api/upsell/create-session", {
    orderId: `${orderId}-up`,
    originalOrderId: orderId,
    customerEmail: "ada@example.com",
    paymentMethodToken,
    provider: "cart_gateway",
    offers: [{ id: "a", name: "Offer a", price: 1100 }],
  });
  expect(created.statusCode, created.body).toBe(200);
  return post(t, "/api/upsell/accept", { sessionId: json(created).sessionId, offerId: "a" });
}

describe("cart_gateway with settings", () => {
  it("is demo until the settings are stored, then creates carts at the API", async () => {
    const demo = await initialize();
    expect(demo.cartOrderId).toMatch(/^cart_ord_/);
    expect(json(await call(t, "POST", "/api/admin/test-crm", { session, body: { provider: "cart_gateway" } }))).toMatchObject({ demo: true });
    expect((await configure()).statusCode).toBe(200);
    const real = await initialize();
    expect(real.cartOrderId).toMatch(/^cart_\d+$/);
    expect(fake.requests.at(-1)!.json).toMatchObject({ externalOrderId: real.orderId, currency: "USD", items: [{ itemId: "checkout", quantity: 1, unitPrice: AMOUNT }] });
    const check = await call(t, "POST", "/api/admin/test-crm", { session, body: { provider: "cart_gateway" } });
    expect(json(check)).toEqual({ success: true, provider: "cart_gateway", demo: false });
  });

  it("runs initialize → process-payment → complete (CRM: the paid cart) → one-click upsell", async () => {
    const { orderId, cartOrderId } = await initialize();
    const paid = await pay(cartOrderId, orderId);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(json(paid)).toMatchObject({ success: true, cartOrderId, demo: false });
    const done = await complete(orderId, json(paid).transactionId);
    expect(done.statusCode, done.body).toBe(200);
    expect(json(done)).toMatchObject({ paymentMethodToken: cartOrderId, crmProvider: "cart_gateway", crmOrderId: cartOrderId });
    expect(await ordersOf(orderId)).toHaveLength(1);

    const accepted = await upsell(orderId, cartOrderId);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(fake.requests.at(-1)).toMatchObject({ path: `/v1/carts/${cartOrderId}/charge-saved`, json: { amount: 1100, currency: "USD", externalOrderId: `${orderId}-up` } });
    expect(t.logs.join("\n")).not.toContain(fake.apiKey);
  });

  it("answers declines with 402: a card at payment, a saved card at upsell", async () => {
    const first = await initialize();
    const declined = await pay(first.cartOrderId, first.orderId, "4000000000000002");
    expect(declined.statusCode).toBe(402);
    expect(await t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, first.orderId))).toHaveLength(1);

    const { orderId, cartOrderId } = await initialize();
    const paid = await pay(cartOrderId, orderId, "4000000000000341");
    expect((await complete(orderId, json(paid).transactionId)).statusCode).toBe(200);
    expect((await upsell(orderId, cartOrderId)).statusCode).toBe(402);
  });

  it("answers 404 for another order's cart, 409 for a cart paid already, and replays an identical repeat without charging", async () => {
    const { orderId, cartOrderId } = await initialize();
    expect((await pay(cartOrderId, "someone-else")).statusCode).toBe(404);
    const first = await pay(cartOrderId, orderId);
    expect(first.statusCode).toBe(200);
    const charges = () => fake.requests.filter((r) => r.method === "POST" && r.path.endsWith("/pay")).length;
    const charged = charges();
    expect((await pay(cartOrderId, orderId)).body).toBe(first.body);
    expect((await pay(cartOrderId, orderId, "5555555555554444")).json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
    expect(charges()).toBe(charged);
    // Paid at the store by other means (no claim of ours): the store's own answer is the same 409.
    await t.deps.database.db.delete(orderCharges).where(eq(orderCharges.orderId, orderId));
    expect((await pay(cartOrderId, orderId, "5555555555554444")).json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
  });

  it.each(["500", "garbage"] as const)("answers 502 PROVIDER_ERROR when the API answers %s, writing nothing", async (mode) => {
    const { orderId, cartOrderId } = await initialize();
    fake.failNext = mode;
    const res = await pay(cartOrderId, orderId);
    expect(res.statusCode).toBe(502);
    expect(json(res)).toMatchObject({ error: "Payment provider cart_gateway failed", code: "PROVIDER_ERROR" });
    const paid = await pay(cartOrderId, orderId);
    fake.failNext = mode;
    const done = await complete(orderId, json(paid).transactionId);
    expect(done.statusCode).toBe(502);
    expect(await ordersOf(orderId)).toHaveLength(0);
  });
});

describe("cart_gateway refunds", () => {
  beforeAll(async () => {
    expect((await configure()).statusCode).toBe(200);
  });
  const refundVia = (orderRef: string, body: Record<string, unknown>) => call(t, "POST", `/api/admin/orders/${orderRef}/refunds`, { session, body });
  const refundCalls = () => fake.requests.filter((r) => r.method === "POST" && r.path.endsWith("/refunds"));
  /** A checkout paid at the API and completed: our order row and the charge's transaction id. */
  async function paidOrder(cardNumber?: string) {
    const { orderId, cartOrderId } = await initialize();
    const paid = await pay(cartOrderId, orderId, cardNumber);
    const transactionId = json(paid).transactionId as string;
    expect((await complete(orderId, transactionId)).statusCode).toBe(200);
    const [order] = await ordersOf(orderId);
    return { order: order!, transactionId };
  }
  const refundRowsOf = (orderRef: string) => t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, orderRef));

  it("refunds part of a charge at the API with the refund's id as Idempotency-Key, then the rest", async () => {
    const { order, transactionId } = await paidOrder();
    const part = await refundVia(order.id, { amount: 1200, reason: "requested_by_customer" });
    expect(part.statusCode, part.body).toBe(200);
    expect(json(part).refund).toMatchObject({ amount: 1200, status: "succeeded", providerRefundId: expect.stringMatching(/^cre_/) });
    const sent = refundCalls().at(-1)!;
    expect(sent).toMatchObject({ path: `/v1/transactions/${transactionId}/refunds`, json: { amount: 1200, currency: "USD", reason: "requested_by_customer" } });
    expect(sent.headers["idempotency-key"]).toBe(json(part).refund.id);
    expect(json(await refundVia(order.id, { reason: "other" })).refund).toMatchObject({ amount: AMOUNT - 1200, status: "succeeded" });
    expect(fake.refunds.filter((r) => r.transactionId === transactionId).map((r) => r.amount)).toEqual([1200, AMOUNT - 1200]);
    expect((await ordersOf(order.orderId))[0]!.refundedCents).toBe(AMOUNT);
  });

  it("a refund the API declines is 402 REFUND_FAILED with its code, and nothing is refunded", async () => {
    const { order, transactionId } = await paidOrder("4000000000005126");
    const res = await refundVia(order.id, { amount: 500, reason: "fraudulent" });
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ error: "Refund failed: refund_declined", code: "REFUND_FAILED", details: "refund_declined" });
    expect(fake.refunds.filter((r) => r.transactionId === transactionId)).toEqual([]);
    expect((await ordersOf(order.orderId))[0]!.refundedCents).toBe(0);
  });

  it("a refund asked again with its id (the reconciler's repeat) answers the first outcome, and the API refunds once", async () => {
    const { order, transactionId } = await paidOrder();
    const first = json(await refundVia(order.id, { amount: 900, reason: "other" })).refund;
    expect(await repeatRefund(t, first.id)).toEqual({ status: "succeeded", providerRefundId: first.providerRefundId });
    expect(refundCalls().filter((r) => r.headers["idempotency-key"] === first.id)).toHaveLength(2);
    expect(fake.refunds.filter((r) => r.transactionId === transactionId)).toHaveLength(1);

    const declined = await paidOrder("4000000000005126");
    expect((await refundVia(declined.order.id, { amount: 100, reason: "other" })).statusCode).toBe(402);
    const [row] = await refundRowsOf(declined.order.id);
    expect(await repeatRefund(t, row!.id)).toEqual({ status: "failed", reason: "refund_declined" });
  });

  it("a failing API is 502: the refund stays pending, holding its amount, until the repeat makes it once", async () => {
    const { order, transactionId } = await paidOrder();
    fake.failNext = "500";
    expect((await refundVia(order.id, { amount: 3000, reason: "other" })).statusCode).toBe(502);
    const [pending] = await refundRowsOf(order.id);
    expect(pending).toMatchObject({ status: "pending", amountCents: 3000 });
    expect(json(await refundVia(order.id, { amount: 1500, reason: "other" }))).toMatchObject({ code: "VALIDATION_ERROR", details: "amount" });
    const made = await repeatRefund(t, pending!.id);
    expect(made).toEqual({ status: "succeeded", providerRefundId: expect.stringMatching(/^cre_/) });
    expect(await repeatRefund(t, pending!.id)).toEqual(made);
    expect(fake.refunds.filter((r) => r.transactionId === transactionId).map((r) => r.amount)).toEqual([3000]);
  });
});
