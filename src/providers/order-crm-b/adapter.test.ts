// order_crm_b's real payment side against a fake of its API at the network boundary: initialize →
// process-payment → complete → one-click upsell; declines 402; a failing API 502, nothing written.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { call, registerUser } from "../../../test/support/identity.js";
import { address, card, customer, post } from "../../../test/support/provider-payments.js";
import { orderCharges, orders, paymentDeclines, sessions } from "../../db/schema/index.js";
import { sha256 } from "../../lib/crypto.js";
import { startFakeOrderCrmB, type FakeOrderCrmB } from "./fake-server.js";
import { bearer, createApiKey } from "../../../test/support/merchant.js";

let t: TestApp;
let apiKey: string;
const merchantPost = (url: string, payload: unknown) => post(t, url, payload, { headers: bearer(apiKey) });
let fake: FakeOrderCrmB;
let brandId: string;
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeOrderCrmB()]);
  const { session } = await registerUser(t);
  // CONTRACT §35: the money paths of a real-money order need the brand's API key.
  apiKey = (await createApiKey(t, session)).secret;
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
const pay = (orderId: string, cardNumber?: string) =>
  post(t, "/api/providers/order_crm_b/process-payment", { orderId, campaignId: "12", customer, billingAddress: address, lineItems: [{ productId: "p1", quantity: 2, price: 1000 }], ...card(cardNumber) });
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

  it("refuses a second payment of a paid orderId with 409 before charging", async () => {
    const { orderId } = await initialize();
    const first = await pay(orderId);
    expect(json(first)).toMatchObject({ success: true, demo: false });
    const charges = fake.requests.filter((r) => r.path === "/order/import/").length;
    expect((await pay(orderId, "5555555555554444")).json()).toEqual({ error: "Order already paid", code: "ALREADY_PAID" });
    expect(fake.requests.filter((r) => r.path === "/order/import/").length).toBe(charges);
    // Paid at the CRM by other means (no claim of ours): the CRM's order query answers the same 409, before any import.
    await t.deps.database.db.delete(orderCharges).where(eq(orderCharges.orderId, orderId));
    expect((await pay(orderId, "5555555555554444")).json()).toEqual({ error: "Order already paid", code: "ALREADY_PAID" });
    expect(fake.requests.filter((r) => r.path === "/order/import/").length).toBe(charges);
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

  it.each(["500", "garbage"] as const)("answers 502 PROVIDER_ERROR when the CRM answers %s, writing nothing", async (mode) => {
    const { orderId } = await initialize();
    fake.failNext = mode;
    const res = await pay(orderId);
    expect(res.statusCode).toBe(502);
    expect(json(res)).toEqual({ error: "Payment provider order_crm_b failed", code: "PROVIDER_ERROR" });
    const paid = await pay(orderId);
    fake.failNext = mode;
    expect((await complete(orderId, json(paid).transactionId)).statusCode).toBe(502);
    expect(await ordersOf(orderId)).toHaveLength(0);
  });
});
