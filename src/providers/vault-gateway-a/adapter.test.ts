// The real vault gateway adapters (vault_gateway_a and _b) against a fake gateway at the network
// boundary: settings take the provider out of demo mode at once; initialize → process-payment →
// complete → process-upsell; declines are 402; a failing gateway is 502 and nothing is written;
// refunds void an unsettled sale whole and refund a settled one in parts.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { registerOwner } from "../../../test/support/admin.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { acceptedUpsell, CARE_PLAN, completeCheckoutViaApi } from "../../../test/support/completed-checkout.js";
import { call, registerUser } from "../../../test/support/identity.js";
import { card, post } from "../../../test/support/provider-payments.js";
import { repeatRefund } from "../../../test/support/refunds.js";
import { demoProviderRecords, orders, paymentDeclines, providerSettings, refunds, sessions } from "../../db/schema/index.js";
import { seal, sha256 } from "../../lib/crypto.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "./fake-server.js";
import { bearer, createApiKey } from "../../../test/support/merchant.js";

let t: TestApp;
let apiKey: string;
const merchantPost = (url: string, payload: unknown) => post(t, url, payload, { headers: bearer(apiKey) });
let fake: FakeVaultGateway;
let session: string;
let brandId: string;
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeVaultGateway()]);
  ({ session, brandId } = await registerOwner(t));
  // CONTRACT §35: the money paths of a real-money order need the brand's API key.
  apiKey = (await createApiKey(t, session, { mode: "live" })).secret;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const AMOUNT = 1050;
const configure = (provider: string) => call(t, "POST", "/api/admin/settings", { session, body: { provider, settings: { securityKey: fake.securityKey, baseUrl: fake.baseUrl } } });
const pay = (provider: string, orderId: string, cardNumber = "4242424242424242") =>
  post(t, `/api/providers/${provider}/process-payment`, { orderId, amount: AMOUNT, currency: "USD", ...card(cardNumber), customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
async function initialize(provider: string) {
  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId });
  const res = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider });
  expect(res.statusCode, res.body).toBe(200);
  return claims.orderId as string;
}
const complete = (provider: string, orderId: string, transactionId: string) =>
  post(t, "/api/checkout/complete", { orderId, transactionId, provider, customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
const ordersOf = (orderId: string) => t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId));
const declinesOf = (orderId: string) => t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId));

describe("vault_gateway_a with settings", () => {
  it("is demo until the settings are stored, then charges at the gateway at once", async () => {
    const before = await pay("vault_gateway_a", "vga-demo-1");
    expect(json(before).demo).toBe(true);
    expect((await configure("vault_gateway_a")).statusCode).toBe(200);
    const after = await pay("vault_gateway_a", "vga-real-1");
    expect(after.statusCode, after.body).toBe(200);
    expect(json(after)).toMatchObject({ success: true, demo: false, orderId: "vga-real-1" });
    expect(fake.requests.at(-1)).toMatchObject({ path: "/api/transact.php", form: { security_key: fake.securityKey, type: "sale", amount: "10.50", ccexp: "1231", customer_vault: "add_customer", orderid: "vga-real-1" } });
  });

  // Issue 31 item 2: the gateway charged 4000 for a 5000 checkout, which could then never complete.
  it("refuses another amount or currency than the initialized checkout's before the gateway is called", async () => {
    const orderId = await initialize("vault_gateway_a");
    const sent = fake.requests.length;
    const body = { orderId, amount: AMOUNT, currency: "USD", ...card() };
    const amount = await post(t, "/api/providers/vault_gateway_a/process-payment", { ...body, amount: AMOUNT - 50 });
    expect(amount.json()).toMatchObject({ error: "Invalid request: amount differs from the checkout's amount", code: "VALIDATION_ERROR", details: "amount" });
    const currency = await post(t, "/api/providers/vault_gateway_a/process-payment", { ...body, currency: "EUR" });
    expect(currency.json()).toMatchObject({ error: "Invalid request: currency differs from the checkout's currency", code: "VALIDATION_ERROR", details: "currency" });
    expect(fake.requests.length).toBe(sent);
    const paid = await post(t, "/api/providers/vault_gateway_a/process-payment", body);
    expect(paid.statusCode, paid.body).toBe(200);
    expect((await complete("vault_gateway_a", orderId, json(paid).transactionId)).statusCode).toBe(200);
  });

  it("runs initialize → process-payment → complete → process-upsell against the gateway", async () => {
    const orderId = await initialize("vault_gateway_a");
    const paid = await pay("vault_gateway_a", orderId);
    expect(paid.statusCode, paid.body).toBe(200);
    const { transactionId, paymentMethodToken } = json(paid);
    expect(paymentMethodToken).toBe(`${fake.transactions.get(transactionId)!.vaultId}|${transactionId}`);

    const done = await complete("vault_gateway_a", orderId, transactionId);
    expect(done.statusCode, done.body).toBe(200);
    expect(json(done)).toMatchObject({ success: true, transactionId, paymentMethodToken });
    expect(fake.requests.at(-1)).toMatchObject({ path: "/api/query.php", form: { transaction_id: transactionId } });
    expect(await ordersOf(orderId)).toHaveLength(1);

    const upsell = await merchantPost("/api/providers/vault_gateway_a/process-upsell", { paymentMethodToken, amount: 500, orderId: `${orderId}-u1`, originalOrderId: orderId });
    expect(upsell.statusCode, upsell.body).toBe(200);
    expect(json(upsell)).toMatchObject({ success: true, amount: 500, currency: "USD", demo: false });
    const charge = fake.requests.at(-1)!;
    expect(charge.form).toMatchObject({ customer_vault_id: paymentMethodToken.split("|")[0], amount: "5.00", orderid: `${orderId}-u1` });
    expect(charge.form.ccnumber).toBeUndefined();
    expect(t.logs.join("\n")).not.toContain("4242424242424242");
    expect(t.logs.join("\n")).not.toContain(fake.securityKey);
  });

  it("answers a gateway decline with 402 and counts it, with the gateway's response_code normalised (issue 34)", async () => {
    const res = await pay("vault_gateway_a", "vga-decline-1", "4000000000000002");
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ code: "PAYMENT_FAILED", details: "card_declined", declineCode: "card_declined", declineClass: "soft", providerCode: "200" });
    expect(await declinesOf("vga-decline-1")).toMatchObject([{ reason: "card_declined", declineCode: "card_declined", declineClass: "soft", providerCode: "200" }]);

    const poor = await pay("vault_gateway_a", "vga-decline-2", "4000000000009995");
    expect(poor.statusCode).toBe(402);
    expect(json(poor)).toMatchObject({ code: "PAYMENT_FAILED", details: "card_declined", declineCode: "insufficient_funds", declineClass: "hard", providerCode: "202" });
  });

  it("declines an upsell of a method the gateway refuses to charge again", async () => {
    const orderId = await initialize("vault_gateway_a");
    const paid = json(await pay("vault_gateway_a", orderId, "4000000000000341"));
    expect((await complete("vault_gateway_a", orderId, paid.transactionId)).statusCode).toBe(200);
    const upsell = await merchantPost("/api/providers/vault_gateway_a/process-upsell", { paymentMethodToken: paid.paymentMethodToken, amount: 500, orderId: `${orderId}-u1`, originalOrderId: orderId });
    expect(upsell.statusCode).toBe(402);
  });

  it.each(["500", "garbage"] as const)("answers 502 PROVIDER_ERROR when the gateway answers %s, writing nothing", async (mode) => {
    fake.failNext = mode;
    const res = await pay("vault_gateway_a", `vga-fail-${mode}`);
    expect(res.statusCode).toBe(502);
    expect(json(res)).toMatchObject({ error: "Payment provider vault_gateway_a failed", code: "PROVIDER_ERROR" });
    expect(await declinesOf(`vga-fail-${mode}`)).toHaveLength(0);

    const orderId = await initialize("vault_gateway_a");
    const paid = json(await pay("vault_gateway_a", orderId));
    fake.failNext = mode;
    const done = await complete("vault_gateway_a", orderId, paid.transactionId);
    expect(done.statusCode).toBe(502);
    expect(json(done).code).toBe("PROVIDER_ERROR");
    expect(await ordersOf(orderId)).toHaveLength(0);
  });

  it("refuses a completion whose transaction the gateway does not know", async () => {
    const orderId = await initialize("vault_gateway_a");
    const done = await complete("vault_gateway_a", orderId, "999999999");
    expect(done.statusCode).toBe(400);
    expect(json(done)).toMatchObject({ code: "PAYMENT_NOT_VERIFIED", details: "payment_not_found" });
  });

  it("treats a wrong security key as a provider failure (502), not a decline", async () => {
    await call(t, "POST", "/api/admin/settings", { session, body: { provider: "vault_gateway_a", settings: { securityKey: "wrong-key-000000" } } });
    const res = await pay("vault_gateway_a", "vga-badkey-1");
    expect(res.statusCode).toBe(502);
    expect(await declinesOf("vga-badkey-1")).toHaveLength(0);
    await configure("vault_gateway_a");
  });
});

describe("vault_gateway_b with settings", () => {
  it("charges at the gateway and completes", async () => {
    expect((await configure("vault_gateway_b")).statusCode).toBe(200);
    const orderId = await initialize("vault_gateway_b");
    const paid = await pay("vault_gateway_b", orderId);
    expect(json(paid)).toMatchObject({ success: true, demo: false });
    const done = await complete("vault_gateway_b", orderId, json(paid).transactionId);
    expect(done.statusCode, done.body).toBe(200);
  });
});

describe("vault gateway refunds", () => {
  beforeAll(async () => {
    expect((await configure("vault_gateway_a")).statusCode).toBe(200);
    expect((await configure("vault_gateway_b")).statusCode).toBe(200);
  });
  const refundVia = (orderRef: string, body: Record<string, unknown>) => call(t, "POST", `/api/admin/orders/${orderRef}/refunds`, { session, body });
  const checkoutOrderOf = async (orderId: string) => (await ordersOf(orderId)).find((o) => o.kind === "checkout")!;
  const refundCallsAfter = (from: number) => fake.requests.slice(from).filter((r) => r.form.type === "refund" || r.form.type === "void");
  /** A checkout paid at the gateway and completed: our order row and the sale's transaction id. */
  async function paidOrder(provider = "vault_gateway_a", cardNumber?: string) {
    const orderId = await initialize(provider);
    const paid = await pay(provider, orderId, cardNumber);
    expect(paid.statusCode, paid.body).toBe(200);
    const transactionId = json(paid).transactionId as string;
    expect((await complete(provider, orderId, transactionId)).statusCode).toBe(200);
    return { orderId, transactionId, order: await checkoutOrderOf(orderId) };
  }

  it("a full refund of an unsettled sale is a void: no amount sent, the sale canceled", async () => {
    const { orderId, transactionId, order } = await paidOrder();
    const from = fake.requests.length;
    const res = await refundVia(order.id, { reason: "requested_by_customer" });
    expect(res.statusCode, res.body).toBe(200);
    const [sent, ...more] = refundCallsAfter(from);
    expect(more).toHaveLength(0);
    expect(sent!.form).toEqual({ security_key: fake.securityKey, type: "void", transactionid: transactionId });
    expect(fake.transactions.get(transactionId)!.condition).toBe("canceled");
    expect(json(res).refund).toMatchObject({ amount: AMOUNT, status: "succeeded", providerRefundId: expect.stringMatching(/^\d+$/) });
    expect((await checkoutOrderOf(orderId)).refundedCents).toBe(AMOUNT);
  });

  it("a partial refund of an unsettled sale is refused as not_settled, with nothing sent", async () => {
    const { orderId, transactionId, order } = await paidOrder();
    const from = fake.requests.length;
    const res = await refundVia(order.id, { amount: 300, reason: "other" });
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ error: "Refund failed: not_settled", code: "REFUND_FAILED", details: "not_settled" });
    expect(refundCallsAfter(from)).toHaveLength(0);
    expect(fake.transactions.get(transactionId)!.condition).toBe("pendingsettlement");
    expect((await checkoutOrderOf(orderId)).refundedCents).toBe(0);
  });

  it("refunds a settled sale in parts with type=refund and the amount as decimal text", async () => {
    const { orderId, transactionId, order } = await paidOrder();
    fake.settle(transactionId);
    const from = fake.requests.length;
    const part = await refundVia(order.id, { amount: 300, reason: "requested_by_customer" });
    expect(part.statusCode, part.body).toBe(200);
    const rest = await refundVia(order.id, { reason: "other" });
    expect(json(rest).refund).toMatchObject({ amount: AMOUNT - 300, status: "succeeded" });
    expect(refundCallsAfter(from).map((r) => r.form)).toEqual([
      { security_key: fake.securityKey, type: "refund", transactionid: transactionId, amount: "3.00", orderid: json(part).refund.id },
      { security_key: fake.securityKey, type: "refund", transactionid: transactionId, amount: "7.50", orderid: json(rest).refund.id },
    ]);
    expect(fake.transactions.get(transactionId)!.refundedCents).toBe(AMOUNT);
    expect((await checkoutOrderOf(orderId)).refundedCents).toBe(AMOUNT);
  });

  it("a refund the gateway declines is 402 REFUND_FAILED with its text, and nothing is refunded", async () => {
    const { orderId, transactionId, order } = await paidOrder("vault_gateway_a", "4000000000005126");
    fake.settle(transactionId);
    const res = await refundVia(order.id, { amount: 500, reason: "fraudulent" });
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ error: "Refund failed: refund_declined", code: "REFUND_FAILED", details: "refund_declined" });
    expect((await checkoutOrderOf(orderId)).refundedCents).toBe(0);
    expect(fake.transactions.get(transactionId)!.refundedCents).toBe(0);
  });

  it("a refund asked again with its id (the reconciler's repeat) is found by its orderid and answered again; nothing is sent twice", async () => {
    const { transactionId, order } = await paidOrder();
    fake.settle(transactionId);
    const first = json(await refundVia(order.id, { amount: 300, reason: "other" })).refund;
    const from = fake.requests.length;
    expect(await repeatRefund(t, first.id)).toEqual({ status: "succeeded", providerRefundId: first.providerRefundId });
    expect(refundCallsAfter(from)).toHaveLength(0);
    expect(fake.requests.slice(from).map((r) => r.form.order_id).filter(Boolean)).toEqual([first.id]);
    expect(fake.transactions.get(transactionId)!.refundedCents).toBe(300);

    const declined = await paidOrder("vault_gateway_a", "4000000000005126");
    fake.settle(declined.transactionId);
    expect((await refundVia(declined.order.id, { amount: 100, reason: "other" })).statusCode).toBe(402);
    const [row] = await t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, declined.order.id));
    const again = fake.requests.length;
    expect(await repeatRefund(t, row!.id)).toEqual({ status: "failed", reason: "refund_declined" });
    expect(refundCallsAfter(again)).toHaveLength(0);
  });

  it("a void asked again answers the same void: the sale is canceled, nothing is sent twice", async () => {
    const { transactionId, order } = await paidOrder();
    const first = json(await refundVia(order.id, { reason: "other" })).refund;
    expect(first.providerRefundId).toBe(transactionId);
    const from = fake.requests.length;
    expect(await repeatRefund(t, first.id)).toEqual({ status: "succeeded", providerRefundId: transactionId });
    expect(refundCallsAfter(from)).toHaveLength(0);
  });

  it("a refund left pending by a 502 is made by the repeat, once", async () => {
    const { transactionId, order } = await paidOrder();
    fake.settle(transactionId);
    fake.failNext = "500";
    expect((await refundVia(order.id, { amount: 400, reason: "other" })).statusCode).toBe(502);
    const [pending] = await t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, order.id));
    const made = await repeatRefund(t, pending!.id);
    expect(made).toEqual({ status: "succeeded", providerRefundId: expect.stringMatching(/^\d+$/) });
    expect(await repeatRefund(t, pending!.id)).toEqual(made);
    expect(fake.transactions.get(transactionId)!.refundedCents).toBe(400);
  });

  it("a failing gateway is 502: the refund stays pending and keeps holding its amount", async () => {
    const { orderId, transactionId, order } = await paidOrder();
    fake.settle(transactionId);
    fake.failNext = "500";
    const res = await refundVia(order.id, { amount: 800, reason: "other" });
    expect(res.statusCode).toBe(502);
    expect((await checkoutOrderOf(orderId)).refundedCents).toBe(0);
    expect((await t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, order.id))).map((r) => [r.status, r.amountCents])).toEqual([["pending", 800]]);
    const more = await refundVia(order.id, { amount: 300, reason: "other" });
    expect(more.statusCode).toBe(400);
    expect(json(more)).toMatchObject({ code: "VALIDATION_ERROR", details: "amount" });
  });

  it("vault_gateway_b refunds the same way, with its own settings", async () => {
    const { orderId, transactionId, order } = await paidOrder("vault_gateway_b");
    expect(order.provider).toBe("vault_gateway_b");
    fake.settle(transactionId);
    const from = fake.requests.length;
    const res = await refundVia(order.id, { amount: 250, reason: "duplicate" });
    expect(res.statusCode, res.body).toBe(200);
    expect(refundCallsAfter(from).map((r) => r.form)).toEqual([{ security_key: fake.securityKey, type: "refund", transactionid: transactionId, amount: "2.50", orderid: json(res).refund.id }]);
    expect(json(res).refund).toMatchObject({ amount: 250, status: "succeeded" });
    expect((await checkoutOrderOf(orderId)).refundedCents).toBe(250);
  });

  it("an order paid in demo mode, and its upsell, are refunded through the demo adapter after the brand configured the gateway", async () => {
    const owner = await registerOwner(t);
    const paid = await completeCheckoutViaApi(t, { provider: "vault_gateway_a", claims: { brandId: owner.brandId } });
    await acceptedUpsell(t, paid, { ...CARE_PLAN, price: 400 });
    const configured = await call(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider: "vault_gateway_a", settings: { securityKey: fake.securityKey, baseUrl: fake.baseUrl } } });
    expect(configured.statusCode).toBe(200);
    const order = await checkoutOrderOf(paid.orderId);
    expect(order.paidInDemo).toBe(true);
    const calls = fake.requests.length;

    const refundOf = (body: Record<string, unknown>) => call(t, "POST", `/api/admin/orders/${order.id}/refunds`, { session: owner.session, body });
    const res = await refundOf({ amount: 300, reason: "requested_by_customer" });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).refund).toMatchObject({ amount: 300, status: "succeeded", providerRefundId: expect.stringMatching(/^rfd_demo_/) });
    const upsell = await refundOf({ charge: `${paid.orderId}-up`, reason: "other" });
    expect(json(upsell).refund).toMatchObject({ amount: 400, status: "succeeded", providerRefundId: expect.stringMatching(/^rfd_demo_/) });
    expect(fake.requests.length).toBe(calls);
    const atDemo = await t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.kind, "refund"), eq(demoProviderRecords.provider, "vault_gateway_a")));
    expect(atDemo.filter((r) => r.orderId?.startsWith(paid.orderId)).map((r) => r.amountCents).sort()).toEqual([300, 400]);
  });
});

describe("registry choices", () => {
  it("a disabled provider is demo again, at once", async () => {
    await call(t, "POST", "/api/admin/settings", { session, body: { provider: "vault_gateway_a", settings: { enabled: false } } });
    try {
      expect(json(await pay("vault_gateway_a", "vga-disabled-1")).demo).toBe(true);
    } finally {
      await call(t, "POST", "/api/admin/settings", { session, body: { provider: "vault_gateway_a", settings: { enabled: true } } });
    }
    expect(json(await pay("vault_gateway_a", "vga-enabled-1")).demo).toBe(false);
  });

  it("secrets that no longer decrypt make the provider not configured (demo), not a failure", async () => {
    await t.deps.database.db
      .update(providerSettings)
      .set({ sealedSecrets: seal(JSON.stringify({ securityKey: fake.securityKey }), Buffer.alloc(32, 1)) })
      .where(and(eq(providerSettings.brandId, brandId), eq(providerSettings.provider, "vault_gateway_b")));
    t.deps.providers.invalidate(brandId);
    try {
      const res = await pay("vault_gateway_b", "vgb-unreadable-1");
      expect(res.statusCode).toBe(200);
      expect(json(res).demo).toBe(true);
      expect(t.logs.join("\n")).toContain("provider secrets cannot be decrypted");
    } finally {
      await configure("vault_gateway_b");
    }
  });

  it("in live mode a configured provider charges at the gateway and an unconfigured one is 409 PROVIDER_NOT_CONFIGURED", async () => {
    const live = await buildTestApp({ env: { PAYMENT_MODE: "live", ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
    try {
      const owner = await registerUser(live);
      const [row] = await live.deps.database.db.select({ brandId: sessions.brandId }).from(sessions).where(eq(sessions.idHash, sha256(owner.session)));
      const configured = await call(live, "POST", "/api/admin/settings", { session: owner.session, body: { provider: "vault_gateway_a", settings: { securityKey: fake.securityKey, baseUrl: fake.baseUrl } } });
      expect(configured.statusCode).toBe(200);
      const body = (orderId: string) => ({ orderId, amount: AMOUNT, currency: "USD", ...card(), customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
      // No checkout for these orderIds: the default brand, which the first user's organization holds.
      expect(row!.brandId).toBe("brand_default");
      const paid = await post(live, "/api/providers/vault_gateway_a/process-payment", body("live-1"));
      expect(paid.statusCode, paid.body).toBe(200);
      expect(json(paid).demo).toBe(false);
      const refused = await post(live, "/api/providers/vault_gateway_b/process-payment", body("live-2"));
      expect(refused.statusCode).toBe(409);
      expect(json(refused)).toMatchObject({ error: "Payment provider not configured", code: "PROVIDER_NOT_CONFIGURED" });
    } finally {
      await live.close();
    }
  });
});
