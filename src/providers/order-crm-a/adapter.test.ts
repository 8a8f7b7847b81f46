// order_crm_a's real payment side against a fake of its CRM API at the network boundary: initialize (a
// pending CRM order) → process-payment → complete → one-click upsell added to the order; declines 402;
// a failing CRM 502, nothing written; refunds (part, rest, an upsell's, declined, repeated, pending after
// a 502); with PAYMENT_MODE=live a configured brand is served instead of 409.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { call, registerUser } from "../../../test/support/identity.js";
import { bearer, createApiKey } from "../../../test/support/merchant.js";
import { address, card, customer, PAY_BY_PROVIDER, post } from "../../../test/support/provider-payments.js";
import { repeatRefund } from "../../../test/support/refunds.js";
import { orderCharges, orders, paymentDeclines, refunds, sessions } from "../../db/schema/index.js";
import { sha256 } from "../../lib/crypto.js";
import { startFakeOrderCrmA, type FakeOrderCrmA } from "./fake-server.js";

let t: TestApp;
let fake: FakeOrderCrmA;
let apiKey: string;
let brandId: string;
let session: string;

async function configuredBrand(app: TestApp) {
  const { session } = await registerUser(app);
  const [row] = await app.deps.database.db.select({ brandId: sessions.brandId }).from(sessions).where(eq(sessions.idHash, sha256(session)));
  const res = await call(app, "POST", "/api/admin/settings", { session, body: { provider: "order_crm_a", settings: { apiUsername: fake.username, apiPassword: fake.password, campaignId: "12", baseUrl: fake.baseUrl } } });
  expect(res.statusCode, res.body).toBe(200);
  return { session, brandId: row!.brandId! };
}

beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeOrderCrmA()]);
  ({ session, brandId } = await configuredBrand(t));
  // CONTRACT §35: the money paths of a real-money order need the brand's API key.
  apiKey = (await createApiKey(t, session, { mode: "live" })).secret;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const AMOUNT = 2000;
const lineItems = [{ productId: "p1", quantity: 2, price: 1000 }];
async function initialize() {
  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId });
  const res = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "order_crm_a", customer: { ...customer, email: "ada@example.com" }, billingAddress: address });
  expect(res.statusCode, res.body).toBe(200);
  return { orderId: claims.orderId as string, crmAOrderId: json(res).providerOrderId as string };
}
const pay = (orderId: string, crmAOrderId: string, cardNumber?: string) => post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId, orderId, ...card(cardNumber) });
const complete = (orderId: string, transactionId: string) =>
  post(t, "/api/checkout/complete", { orderId, transactionId, provider: "order_crm_a", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
const ordersOf = (orderId: string) => t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId));
async function upsell(orderId: string, paymentMethodToken: string) {
  const created = await post(
    t,
    "/api/upsell/create-session",
    { orderId: `${orderId}-up`, originalOrderId: orderId, customerEmail: "ada@example.com", paymentMethodToken, provider: "order_crm_a", offers: [{ id: "a", name: "Offer a", price: 600 }] },
    { headers: bearer(apiKey) },
  );
  expect(created.statusCode, created.body).toBe(200);
  return post(t, "/api/upsell/accept", { sessionId: json(created).sessionId, offerId: "a" });
}
const callsTo = (path: string) => fake.requests.filter((r) => r.path === `/api/v1/${path}`);

describe("order_crm_a payments with settings", () => {
  // Issue 31 item 2: a CRM order of another total than the checkout's was charged, then never completed.
  it("refuses a CRM order of another total or currency than the initialized checkout's before order_payment", async () => {
    const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId });
    const orderId = claims.orderId as string;
    const createOrder = (total: number, currency = "USD") =>
      post(t, "/api/providers/order_crm_a/create-order", { orderId, customer, shippingAddress: address, billingAddress: address, lineItems, total, currency });
    // Made before the checkout existed (nothing to compare with then): a stale page could still pay it.
    const stale = json(await createOrder(AMOUNT - 500)).crmAOrderId;
    const init = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "order_crm_a", customer, billingAddress: address });
    expect(init.statusCode, init.body).toBe(200);
    const sent = fake.requests.length;

    expect(json(await createOrder(AMOUNT - 500))).toMatchObject({ error: "Invalid request: total differs from the checkout's amount", code: "VALIDATION_ERROR", details: "total" });
    expect(json(await createOrder(AMOUNT, "EUR"))).toMatchObject({ code: "VALIDATION_ERROR", details: "currency" });
    expect(fake.requests.length).toBe(sent);
    const refused = await pay(orderId, stale);
    expect(json(refused)).toMatchObject({ error: "Invalid request: amount differs from the checkout's amount", code: "VALIDATION_ERROR", details: "amount" });
    // The CRM was only read (order_view), never asked to charge.
    expect(fake.requests.slice(sent).map((r) => r.path)).toEqual(["/api/v1/order_view"]);
    expect(fake.orders.get(stale)!.order_status).toBe("pending");

    const paid = await pay(orderId, json(init).providerOrderId);
    expect(paid.statusCode, paid.body).toBe(200);
    expect((await complete(orderId, json(paid).transactionId)).statusCode).toBe(200);
  });

  it("runs initialize (a pending CRM order) → process-payment → complete → one-click upsell added to the order at the CRM", async () => {
    const { orderId, crmAOrderId } = await initialize();
    expect(fake.orders.get(crmAOrderId)).toMatchObject({ order_status: "pending", external_order_id: orderId, totalCents: AMOUNT, currency: "USD" });
    expect(callsTo("new_order").at(-1)!.json).toMatchObject({ campaignId: "12", creditCardType: "pending", externalOrderId: orderId, total: "20.00", email: "ada@example.com", billingCity: "London" });

    const paid = await pay(orderId, crmAOrderId);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(json(paid)).toEqual({ success: true, transactionId: expect.stringMatching(/^T/), crmAOrderId });
    expect(callsTo("order_payment").at(-1)!.json).toEqual({ order_id: crmAOrderId, tranType: "Sale", creditCardType: "visa", creditCardNumber: "4242424242424242", expirationDate: "1231", CVV: "123" });

    const done = await complete(orderId, json(paid).transactionId);
    expect(done.statusCode, done.body).toBe(200);
    expect(json(done).paymentMethodToken).toBe(crmAOrderId);
    const [order] = await ordersOf(orderId);
    expect(order).toMatchObject({ provider: "order_crm_a", providerOrderId: crmAOrderId, paidInDemo: false, amountCents: AMOUNT });

    const confirmed = await post(t, "/api/providers/order_crm_a/confirm-order", { crmAOrderId, orderId });
    expect(json(confirmed)).toEqual({ success: true, crmAOrderId, orderId, status: "confirmed", demo: false });

    const accepted = await upsell(orderId, crmAOrderId);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(callsTo("new_upsell").at(-1)!.json).toMatchObject({ previousOrderId: crmAOrderId, externalOrderId: `${orderId}-up`, total: "6.00" });
    const [up] = await ordersOf(`${orderId}-up`);
    expect(fake.orders.get(up!.providerOrderId!)).toMatchObject({ previousOrderId: crmAOrderId, transaction_id: up!.transactionId, totalCents: 600 });
    expect(fake.orders.get(up!.providerOrderId!)!.notes).toMatch(/^charge upsell:/);
    // Asked again with the same key (our commit lost after the CRM's answer): the upsell order made is answered, nothing charged twice.
    const upsells = callsTo("new_upsell").length;
    const again = await t.deps.providers.payment("order_crm_a", brandId, true);
    const repeat = await again.adapter.chargeSaved(
      { paymentMethodToken: crmAOrderId, amountCents: 600, currency: "USD", orderId: `${orderId}-up`, originalOrderId: orderId },
      { ...again.call, idempotencyKey: fake.orders.get(up!.providerOrderId!)!.notes.replace(/^charge /, "") },
    );
    expect(repeat).toEqual({ status: "succeeded", transactionId: up!.transactionId, paymentMethodToken: crmAOrderId, providerOrderId: up!.providerOrderId });
    expect(callsTo("new_upsell")).toHaveLength(upsells);
    expect(t.logs.join("\n")).not.toContain(fake.password);
    expect(t.logs.join("\n")).not.toContain("4242424242424242");
  });

  it("recording an order paid at this CRM answers its paid CRM order; one recorded elsewhere is found again on a retry: never a second CRM order", async () => {
    const { orderId, crmAOrderId } = await initialize();
    const paid = json(await pay(orderId, crmAOrderId));
    const created = callsTo("new_order").length;
    const recorded = { customer: { firstName: "Ada", lastName: "Lovelace" }, billingAddress: address, recordInCrm: true };
    const done = await post(t, "/api/checkout/complete", { orderId, transactionId: paid.transactionId, provider: "order_crm_a", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD", ...recorded });
    expect(done.statusCode, done.body).toBe(200);
    expect(json(done)).toMatchObject({ crmProvider: "order_crm_a", crmOrderId: crmAOrderId });
    expect(callsTo("new_order")).toHaveLength(created);

    // Paid elsewhere in test mode (a demo vault_gateway_b payment, issue 33): recorded in the demo CRM, never at the
    // brand's real one; then our side forgets the answer (as when it was lost) and the retry finds it again.
    const claims = orderClaims({ amount: 1000, currency: "USD", brandId, provider: "vault_gateway_b" });
    const other = claims.orderId as string;
    expect((await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "vault_gateway_b" })).statusCode).toBe(200);
    const elsewhere = await PAY_BY_PROVIDER.vault_gateway_b(t, other);
    const first = await post(t, "/api/checkout/complete", { orderId: other, transactionId: elsewhere.transactionId, provider: "vault_gateway_b", customerEmail: "ada@example.com", customerName: "Ada", amount: 1000, currency: "USD", crmProvider: "order_crm_a", ...recorded });
    expect(first.statusCode, first.body).toBe(200);
    const crmOrderId = json(first).crmOrderId as string;
    expect(fake.orders.get(crmOrderId)).toBeUndefined();
    expect(callsTo("new_order")).toHaveLength(created);
    await t.deps.database.db.update(orders).set({ crmStatus: "failed", crmOrderId: null }).where(eq(orders.orderId, other));
    const made = callsTo("new_order").length;
    const retried = await call(t, "POST", "/api/admin/crm-retry", { session, body: { orderId: other } });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(json(retried)).toMatchObject({ crmStatus: "recorded", crmOrderId });
    expect(callsTo("new_order")).toHaveLength(made);
  });

  it("create-order makes the CRM order with the request's items and total", async () => {
    const orderId = `crma-create-${Date.now()}`;
    const res = await post(t, "/api/providers/order_crm_a/create-order", { orderId, customer, shippingAddress: address, billingAddress: address, lineItems, total: AMOUNT, currency: "eur", campaignId: "77" });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ success: true, crmAOrderId: expect.any(String), demo: false });
    expect(callsTo("new_order").at(-1)!.json).toMatchObject({ campaignId: "77", currency: "EUR", offers: [{ product_id: "p1", quantity: 2, price: "10.00" }] });
  });

  it("refuses another order's CRM order (404), a paid one (409), and confirming an unpaid one (409), before charging", async () => {
    const { orderId, crmAOrderId } = await initialize();
    const charges = callsTo("order_payment").length;
    const other = await pay("someone-elses-order", crmAOrderId);
    expect(other.statusCode).toBe(404);
    expect(json(other)).toMatchObject({ error: "Order not found", code: "NOT_FOUND", details: "crmAOrderId" });
    expect((await pay(orderId, "999999")).statusCode).toBe(404);
    expect((await post(t, "/api/providers/order_crm_a/confirm-order", { crmAOrderId, orderId })).statusCode).toBe(409);
    expect(callsTo("order_payment")).toHaveLength(charges);

    expect(json(await pay(orderId, crmAOrderId))).toMatchObject({ success: true });
    // Paid at the CRM by other means (no claim of ours): the CRM's order status answers the same 409, before any charge.
    await t.deps.database.db.delete(orderCharges).where(eq(orderCharges.orderId, orderId));
    expect((await pay(orderId, crmAOrderId, "5555555555554444")).json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
    expect(callsTo("order_payment")).toHaveLength(charges + 1);
  });

  it("answers declines with 402: the card at payment (the CRM's reason), the saved card at upsell", async () => {
    const first = await initialize();
    const declined = await pay(first.orderId, first.crmAOrderId, "4000000000009995");
    expect(declined.statusCode).toBe(402);
    expect(json(declined)).toMatchObject({ error: "Payment failed: insufficient_funds", code: "PAYMENT_FAILED", details: "insufficient_funds" });
    expect(await t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, first.orderId))).toHaveLength(1);
    expect(fake.orders.get(first.crmAOrderId)!.order_status).toBe("pending");

    const { orderId, crmAOrderId } = await initialize();
    const paid = await pay(orderId, crmAOrderId, "4000000000000341");
    expect((await complete(orderId, json(paid).transactionId)).statusCode).toBe(200);
    expect((await upsell(orderId, crmAOrderId)).statusCode).toBe(402);
  });

  it("refuses a completion with a transaction the CRM order does not carry: 400 PAYMENT_NOT_VERIFIED, nothing written", async () => {
    const { orderId, crmAOrderId } = await initialize();
    await pay(orderId, crmAOrderId);
    const done = await complete(orderId, "T-unknown");
    expect(done.statusCode, done.body).toBe(400);
    expect(json(done)).toMatchObject({ code: "PAYMENT_NOT_VERIFIED" });
    expect(await ordersOf(orderId)).toHaveLength(0);
  });

  it.each(["500", "garbage"] as const)("answers 502 PROVIDER_ERROR when the CRM answers %s, writing nothing", async (mode) => {
    const { orderId, crmAOrderId } = await initialize();
    fake.failNext = mode;
    const res = await pay(orderId, crmAOrderId);
    expect(res.statusCode).toBe(502);
    expect(json(res)).toMatchObject({ error: "Payment provider order_crm_a failed", code: "PROVIDER_ERROR" });
    const paid = await pay(orderId, crmAOrderId);
    fake.failNext = mode;
    expect((await complete(orderId, json(paid).transactionId)).statusCode).toBe(502);
    expect(await ordersOf(orderId)).toHaveLength(0);
  });
});

describe("order_crm_a refunds", () => {
  const refundVia = (orderRef: string, body: Record<string, unknown>) => call(t, "POST", `/api/admin/orders/${orderRef}/refunds`, { session, body });
  const refundRowsOf = (orderRef: string) => t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, orderRef));
  const refundsAtCrm = (crmOrderId: string, refundId: string) => fake.orders.get(crmOrderId)!.refunds.filter((r) => r.notes === `refund ${refundId}`);
  /** A checkout paid at the CRM and completed: our order row and the CRM order. */
  async function paidOrder(cardNumber?: string) {
    const { orderId, crmAOrderId } = await initialize();
    const paid = json(await pay(orderId, crmAOrderId, cardNumber));
    expect((await complete(orderId, paid.transactionId)).statusCode).toBe(200);
    const [order] = await ordersOf(orderId);
    return { order: order!, crmAOrderId };
  }

  it("refunds part of the order with our refund id in the notes, then the rest (the order's refunds at the CRM reach its total)", async () => {
    const { order, crmAOrderId } = await paidOrder();
    const part = await refundVia(order.id, { amount: 500, reason: "requested_by_customer" });
    expect(part.statusCode, part.body).toBe(200);
    const first = json(part).refund;
    expect(first).toMatchObject({ amount: 500, currency: "USD", status: "succeeded", providerRefundId: expect.stringMatching(/^R/) });
    expect(callsTo("order_refund").at(-1)!.json).toEqual({ order_id: crmAOrderId, amount: "5.00", keep_recurring: 1, notes: `refund ${first.id}` });
    expect(fake.orders.get(crmAOrderId)).toMatchObject({ order_status: "partially_refunded", refundedCents: 500 });

    const rest = await refundVia(order.id, { reason: "other" });
    expect(json(rest).refund).toMatchObject({ amount: AMOUNT - 500, status: "succeeded" });
    expect(fake.orders.get(crmAOrderId)).toMatchObject({ order_status: "refunded", refundedCents: AMOUNT });
    expect((await ordersOf(order.orderId))[0]!.refundedCents).toBe(AMOUNT);
    expect(json(await call(t, "GET", `/api/admin/orders/${order.id}`, { session })).status).toBe("refunded");
  });

  it("refunds an upsell's own CRM order apart from the checkout's", async () => {
    const { order, crmAOrderId } = await paidOrder();
    expect((await upsell(order.orderId, crmAOrderId)).statusCode).toBe(200);
    const [up] = await ordersOf(`${order.orderId}-up`);
    const res = await refundVia(order.id, { charge: up!.id, reason: "other" });
    expect(res.statusCode, res.body).toBe(200);
    expect(callsTo("order_refund").at(-1)!.json).toMatchObject({ order_id: up!.providerOrderId, amount: "6.00" });
    expect(fake.orders.get(crmAOrderId)!.refundedCents).toBe(0);
  });

  it("a refund the CRM declines is 402 REFUND_FAILED, recorded failed, and nothing is refunded", async () => {
    const { order, crmAOrderId } = await paidOrder("4000000000005126");
    const res = await refundVia(order.id, { amount: 300, reason: "fraudulent" });
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ error: "Refund failed: refund_declined", code: "REFUND_FAILED", details: "refund_declined" });
    expect(await refundRowsOf(order.id)).toEqual([expect.objectContaining({ status: "failed", failureReason: "refund_declined", amountCents: 300 })]);
    expect(fake.orders.get(crmAOrderId)!.refundedCents).toBe(0);
    expect((await ordersOf(order.orderId))[0]!.refundedCents).toBe(0);
  });

  it("a refund asked again with its id (the reconciler's repeat) is found by its notes and answered again; nothing is sent twice", async () => {
    const { order, crmAOrderId } = await paidOrder();
    const first = json(await refundVia(order.id, { amount: 700, reason: "other" })).refund;
    const sent = callsTo("order_refund").length;
    expect(await repeatRefund(t, first.id)).toEqual({ status: "succeeded", providerRefundId: first.providerRefundId });
    expect(callsTo("order_refund")).toHaveLength(sent);
    expect(refundsAtCrm(crmAOrderId, first.id)).toHaveLength(1);

    const declined = await paidOrder("4000000000005126");
    expect((await refundVia(declined.order.id, { amount: 100, reason: "other" })).statusCode).toBe(402);
    const [row] = await refundRowsOf(declined.order.id);
    expect(await repeatRefund(t, row!.id)).toEqual({ status: "failed", reason: "refund_declined" });
    expect(refundsAtCrm(declined.crmAOrderId, row!.id)).toHaveLength(1);
  });

  it("a failing CRM is 502: the refund stays pending, holding its amount, until the repeat makes it once", async () => {
    const { order, crmAOrderId } = await paidOrder();
    fake.failNext = "500";
    const failed = await refundVia(order.id, { amount: 1200, reason: "other" });
    expect(failed.statusCode).toBe(502);
    const [pending] = await refundRowsOf(order.id);
    expect(pending).toMatchObject({ status: "pending", amountCents: 1200 });
    expect((await ordersOf(order.orderId))[0]!.refundedCents).toBe(0);
    // The pending refund holds its amount: only 800 is left to ask for.
    expect((await refundVia(order.id, { amount: 900, reason: "other" })).statusCode).toBe(400);

    const made = await repeatRefund(t, pending!.id);
    expect(made).toEqual({ status: "succeeded", providerRefundId: expect.stringMatching(/^R/) });
    expect(await repeatRefund(t, pending!.id)).toEqual(made);
    expect(fake.orders.get(crmAOrderId)!.refundedCents).toBe(1200);
    expect(refundsAtCrm(crmAOrderId, pending!.id)).toHaveLength(1);
  });

  it("more than the CRM has left is a failed refund (amount_too_large); a charge the CRM order does not carry is charge_not_found", async () => {
    const { order, crmAOrderId } = await paidOrder();
    // Refunded at the CRM directly (its own back office): our books still show all of it.
    fake.orders.get(crmAOrderId)!.refundedCents = AMOUNT - 100;
    const res = await refundVia(order.id, { amount: 500, reason: "other" });
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ code: "REFUND_FAILED", details: "amount_too_large" });

    const other = await paidOrder();
    fake.orders.get(other.crmAOrderId)!.transaction_id = "T-replaced";
    const sent = callsTo("order_refund").length;
    expect(json(await refundVia(other.order.id, { amount: 100, reason: "other" }))).toMatchObject({ code: "REFUND_FAILED", details: "charge_not_found" });
    expect(callsTo("order_refund")).toHaveLength(sent);
  });
});

describe("order_crm_a with PAYMENT_MODE=live", () => {
  it("serves a brand with order_crm_a settings through the real CRM; a brand without them is 409 PROVIDER_NOT_CONFIGURED", async () => {
    const live = await buildTestApp({ env: { PAYMENT_MODE: "live", ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
    try {
      const configured = await configuredBrand(live);
      const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId: configured.brandId });
      const initialized = await post(live, "/api/checkout/initialize", { token: await signToken(live, claims), provider: "order_crm_a", customer });
      expect(initialized.statusCode, initialized.body).toBe(200);
      const crmAOrderId = json(initialized).providerOrderId as string;
      expect(fake.orders.get(crmAOrderId)).toMatchObject({ order_status: "pending", external_order_id: claims.orderId });
      const paid = await post(live, "/api/providers/order_crm_a/process-payment", { crmAOrderId, orderId: claims.orderId, ...card() });
      expect(paid.statusCode, paid.body).toBe(200);
      expect(fake.orders.get(crmAOrderId)!.order_status).toBe("approved");

      const bare = await registerUser(live);
      const [row] = await live.deps.database.db.select({ brandId: sessions.brandId }).from(sessions).where(eq(sessions.idHash, sha256(bare.session)));
      const other = orderClaims({ amount: AMOUNT, currency: "USD", brandId: row!.brandId! });
      const refused = await post(live, "/api/checkout/initialize", { token: await signToken(live, other), provider: "order_crm_a", customer });
      expect(refused.statusCode).toBe(409);
      expect(json(refused)).toMatchObject({ error: "Payment provider not configured", code: "PROVIDER_NOT_CONFIGURED" });
    } finally {
      await live.close();
    }
  });
});
