// order_crm_b's real payment side against a fake of its API at the network boundary: initialize →
// process-payment → complete → one-click upsell; declines 402; a failing API 502, nothing written.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { call, registerUser } from "../../../test/support/identity.js";
import { address, card, customer, PAY_BY_PROVIDER, post } from "../../../test/support/provider-payments.js";
import { orderCharges, orders, paymentDeclines, refunds, sessions } from "../../db/schema/index.js";
import { sha256 } from "../../lib/crypto.js";
import { startFakeOrderCrmB, type FakeOrderCrmB } from "./fake-server.js";
import { bearer, createApiKey } from "../../../test/support/merchant.js";
import { repeatRefund } from "../../../test/support/refunds.js";

let t: TestApp;
let apiKey: string;
const merchantPost = (url: string, payload: unknown) => post(t, url, payload, { headers: bearer(apiKey) });
let fake: FakeOrderCrmB;
let brandId: string;
let session: string;
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeOrderCrmB()]);
  ({ session } = await registerUser(t));
  // CONTRACT §35: the money paths of a real-money order need the brand's API key.
  apiKey = (await createApiKey(t, session, { mode: "live" })).secret;
  const [row] = await t.deps.database.db.select({ brandId: sessions.brandId }).from(sessions).where(eq(sessions.idHash, sha256(session)));
  brandId = row!.brandId!;
  const res = await call(t, "POST", "/api/admin/settings", { session, body: { provider: "order_crm_b", settings: { apiUsername: fake.loginId, apiPassword: fake.password, campaignId: "12", baseUrl: fake.baseUrl } } });
  expect(res.statusCode).toBe(200);
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const AMOUNT = 2000;
async function initialize() {
  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId });
  const res = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "order_crm_b", customer: { ...customer, email: "ada@example.com" } });
  expect(res.statusCode, res.body).toBe(200);
  return { orderId: claims.orderId as string, leadId: json(res).providerOrderId as string };
}
const pay = (orderId: string, cardNumber?: string, campaign: { campaignId?: string } = { campaignId: "12" }) =>
  post(t, "/api/providers/order_crm_b/process-payment", { orderId, ...campaign, customer, billingAddress: address, lineItems: [{ productId: "p1", quantity: 2, price: 1000 }], ...card(cardNumber) });
const complete = (orderId: string, transactionId: string) =>
  post(t, "/api/checkout/complete", { orderId, transactionId, provider: "order_crm_b", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
const ordersOf = (orderId: string) => t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId));
async function upsell(orderId: string, paymentMethodToken: string) {
  const created = await merchantPost("/api/upsell/create-session", { orderId: `${orderId}-up`, originalOrderId: orderId, customerEmail: "ada@example.com", paymentMethodToken, provider: "order_crm_b", offers: [{ id: "a", name: "Offer a", price: 600 }] });
  expect(created.statusCode, created.body).toBe(200);
  return post(t, "/api/upsell/accept", { sessionId: json(created).sessionId, offerId: "a" });
}

describe("order_crm_b payments with settings", () => {
  it("runs initialize (a lead) → process-payment → complete → one-click upsell at the CRM", async () => {
    const { orderId, leadId } = await initialize();
    expect(leadId).toMatch(/^KL/);
    expect(fake.requests.at(-1)).toMatchObject({ path: "/leads/import/", form: { campaignId: "12", custom1: orderId } });
    const paid = await pay(orderId);
    expect(paid.statusCode, paid.body).toBe(200);
    expect(json(paid)).toMatchObject({ success: true, orderId, demo: false });
    expect(json(paid).paymentMethodToken).toBe(json(paid).crmBOrderId);
    expect(fake.requests.at(-1)!.form).toMatchObject({ paySource: "CREDITCARD", custom1: orderId, product1_price: "10.00", product1_qty: "2" });

    const done = await complete(orderId, json(paid).transactionId);
    expect(done.statusCode, done.body).toBe(200);
    expect(await ordersOf(orderId)).toHaveLength(1);

    const accepted = await upsell(orderId, json(paid).paymentMethodToken);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(fake.requests.at(-1)).toMatchObject({ path: "/upsale/import/", form: { orderId: json(paid).crmBOrderId, productPrice: "6.00" } });
    expect(t.logs.join("\n")).not.toContain(fake.password);
  });

  it("takes the brand's campaignId setting when the payment names none (the hosted checkout page's)", async () => {
    const { orderId } = await initialize();
    const paid = await pay(orderId, undefined, {});
    expect(paid.statusCode, paid.body).toBe(200);
    expect(fake.requests.at(-1)!.form).toMatchObject({ campaignId: "12", paySource: "CREDITCARD", custom1: orderId });
  });

  it("refuses a second payment of a paid orderId with 409 before charging", async () => {
    const { orderId } = await initialize();
    const first = await pay(orderId);
    expect(json(first)).toMatchObject({ success: true, demo: false });
    const charges = fake.requests.filter((r) => r.path === "/order/import/").length;
    expect((await pay(orderId, "5555555555554444")).json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
    expect(fake.requests.filter((r) => r.path === "/order/import/").length).toBe(charges);
    // Paid at the CRM by other means (no claim of ours): the CRM's order query answers the same 409, before any import.
    await t.deps.database.db.delete(orderCharges).where(eq(orderCharges.orderId, orderId));
    expect((await pay(orderId, "5555555555554444")).json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
    expect(fake.requests.filter((r) => r.path === "/order/import/").length).toBe(charges);
  });

  it("recording a sale paid at this CRM answers its paid CRM order; a retry after a lost answer finds the first recording: never a second CRM order", async () => {
    const imports = () => fake.requests.filter((r) => r.path === "/order/import/").length;
    const recorded = { customer: { firstName: "Ada", lastName: "Lovelace" }, billingAddress: address, recordInCrm: true };
    const { orderId } = await initialize();
    const paid = json(await pay(orderId));
    const before = imports();
    const done = await post(t, "/api/checkout/complete", { orderId, transactionId: paid.transactionId, provider: "order_crm_b", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD", ...recorded });
    expect(done.statusCode, done.body).toBe(200);
    expect(json(done)).toMatchObject({ crmProvider: "order_crm_b", crmOrderId: paid.crmBOrderId });
    expect(imports()).toBe(before);
    expect(await ordersOf(orderId)).toMatchObject([{ crmStatus: "recorded", crmOrderId: paid.crmBOrderId }]);

    // Paid elsewhere in test mode (a demo vault_gateway_b payment, issue 33): recorded in the demo CRM,
    // never at the brand's real one, whatever its settings.
    const claims = orderClaims({ amount: 1000, currency: "USD", brandId, provider: "vault_gateway_b" });
    const other = claims.orderId as string;
    expect((await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "vault_gateway_b" })).statusCode).toBe(200);
    const elsewhere = await PAY_BY_PROVIDER.vault_gateway_b(t, other);
    const made = imports();
    const first = await post(t, "/api/checkout/complete", { orderId: other, transactionId: elsewhere.transactionId, provider: "vault_gateway_b", customerEmail: "ada@example.com", customerName: "Ada", amount: 1000, currency: "USD", crmProvider: "order_crm_b", ...recorded });
    expect(first.statusCode, first.body).toBe(200);
    expect(json(first).crmOrderId).toEqual(expect.any(String));
    expect(await ordersOf(other)).toMatchObject([{ crmStatus: "recorded", livemode: false }]);
    expect(imports()).toBe(made);
    expect([...fake.orders.values()].filter((o) => o.custom1 === other)).toEqual([]);
  });

  it("answers declines with 402: the card at payment, the saved card at upsell", async () => {
    const first = await initialize();
    expect((await pay(first.orderId, "4000000000000002")).statusCode).toBe(402);
    expect(fake.requests.at(-1)).toMatchObject({ path: "/order/import/", form: { paySource: "CREDITCARD" } });
    expect(await t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, first.orderId))).toHaveLength(1);

    const { orderId } = await initialize();
    const paid = await pay(orderId, "4000000000000341");
    expect((await complete(orderId, json(paid).transactionId)).statusCode).toBe(200);
    expect((await upsell(orderId, json(paid).paymentMethodToken)).statusCode).toBe(402);
  });

  it("refuses a completion with a transaction the CRM does not know: 400 PAYMENT_NOT_VERIFIED, nothing written", async () => {
    const { orderId } = await initialize();
    const done = await complete(orderId, "KT-unknown");
    expect(done.statusCode, done.body).toBe(400);
    expect(json(done)).toMatchObject({ code: "PAYMENT_NOT_VERIFIED" });
    expect(await ordersOf(orderId)).toHaveLength(0);
  });

  it.each(["500", "garbage"] as const)("answers 502 PROVIDER_ERROR when the CRM answers %s, writing nothing", async (mode) => {
    const { orderId } = await initialize();
    fake.failNext = mode;
    const res = await pay(orderId);
    expect(res.statusCode).toBe(502);
    expect(json(res)).toMatchObject({ error: "Payment provider order_crm_b failed", code: "PROVIDER_ERROR" });
    const paid = await pay(orderId);
    fake.failNext = mode;
    expect((await complete(orderId, json(paid).transactionId)).statusCode).toBe(502);
    expect(await ordersOf(orderId)).toHaveLength(0);
  });
});

describe("order_crm_b refunds", () => {
  const refundVia = (orderRef: string, body: Record<string, unknown>) => call(t, "POST", `/api/admin/orders/${orderRef}/refunds`, { session, body });
  const refundCalls = () => fake.requests.filter((r) => r.path === "/transactions/refund/");
  const refundRowsOf = (orderRef: string) => t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, orderRef));
  const refundsAtCrm = (custom1: string) => [...fake.transactions.values()].filter((x) => x.txnType === "REFUND" && x.custom1 === custom1);
  /** A checkout paid at the CRM and completed: our order row, the sale's transaction and the CRM order. */
  async function paidOrder(cardNumber?: string) {
    const { orderId } = await initialize();
    const paid = json(await pay(orderId, cardNumber));
    expect((await complete(orderId, paid.transactionId)).statusCode).toBe(200);
    const [order] = await ordersOf(orderId);
    return { order: order!, transactionId: paid.transactionId as string, paymentMethodToken: paid.paymentMethodToken as string };
  }

  it("refunds part of the sale with our refund id in custom1, then the rest", async () => {
    const { order, transactionId } = await paidOrder();
    const part = await refundVia(order.id, { amount: 500, reason: "requested_by_customer" });
    expect(part.statusCode, part.body).toBe(200);
    const first = json(part).refund;
    expect(first).toMatchObject({ amount: 500, status: "succeeded", providerRefundId: expect.stringMatching(/^KT/) });
    expect(refundCalls().at(-1)!.form).toEqual({ loginId: fake.loginId, password: fake.password, transactionId, refundAmount: "5.00", custom1: first.id });
    expect(json(await refundVia(order.id, { reason: "other" })).refund).toMatchObject({ amount: AMOUNT - 500, status: "succeeded" });
    expect(fake.transactions.get(transactionId)!.refunded).toBe(AMOUNT / 100);
    expect((await ordersOf(order.orderId))[0]!.refundedCents).toBe(AMOUNT);
  });

  it("refunds an upsale's transaction apart from the sale", async () => {
    const { order, paymentMethodToken } = await paidOrder();
    expect((await upsell(order.orderId, paymentMethodToken)).statusCode).toBe(200);
    const [up] = await ordersOf(`${order.orderId}-up`);
    const res = await refundVia(order.id, { charge: up!.id, reason: "other" });
    expect(res.statusCode, res.body).toBe(200);
    expect(refundCalls().at(-1)!.form).toMatchObject({ transactionId: up!.transactionId, refundAmount: "6.00" });
  });

  it("a refund the CRM declines is 402 REFUND_FAILED, and nothing is refunded", async () => {
    const { order, transactionId } = await paidOrder("4000000000005126");
    const res = await refundVia(order.id, { amount: 300, reason: "fraudulent" });
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ error: "Refund failed: refund_declined", code: "REFUND_FAILED", details: "refund_declined" });
    expect(fake.transactions.get(transactionId)!.refunded).toBe(0);
  });

  it("a refund asked again with its id (the reconciler's repeat) is found by its custom1 and answered again; nothing is sent twice", async () => {
    const { order } = await paidOrder();
    const first = json(await refundVia(order.id, { amount: 700, reason: "other" })).refund;
    const sent = refundCalls().length;
    expect(await repeatRefund(t, first.id)).toEqual({ status: "succeeded", providerRefundId: first.providerRefundId });
    expect(refundCalls()).toHaveLength(sent);
    expect(refundsAtCrm(first.id)).toHaveLength(1);

    const declined = await paidOrder("4000000000005126");
    expect((await refundVia(declined.order.id, { amount: 100, reason: "other" })).statusCode).toBe(402);
    const [row] = await refundRowsOf(declined.order.id);
    expect(await repeatRefund(t, row!.id)).toEqual({ status: "failed", reason: "refund_declined" });
    expect(refundsAtCrm(row!.id)).toHaveLength(1);
  });

  it("a failing CRM is 502: the refund stays pending, holding its amount, until the repeat makes it once", async () => {
    const { order, transactionId } = await paidOrder();
    fake.failNext = "500";
    expect((await refundVia(order.id, { amount: 1200, reason: "other" })).statusCode).toBe(502);
    const [pending] = await refundRowsOf(order.id);
    expect(pending).toMatchObject({ status: "pending", amountCents: 1200 });
    const made = await repeatRefund(t, pending!.id);
    expect(made).toEqual({ status: "succeeded", providerRefundId: expect.stringMatching(/^KT/) });
    expect(await repeatRefund(t, pending!.id)).toEqual(made);
    expect(fake.transactions.get(transactionId)!.refunded).toBe(12);
  });
});
