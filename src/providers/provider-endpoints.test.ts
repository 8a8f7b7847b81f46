// Every row of SPEC.md "Payment provider endpoints": the happy path answers exactly the listed members
// (and, for "not shown" bodies, those of docs/providers.md), ids carry the provider's prefix, tokens
// have SPEC's formats, and no answer may be cached.
import { and, eq } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { address, AMOUNT, card, customer, post } from "../../test/support/provider-payments.js";
import { demoProviderRecords } from "../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const ID = "[A-Za-z0-9_-]{22}";
const lineItems = [{ productId: "p1", quantity: 2, price: AMOUNT / 2 }];

function expectOk(response: LightMyRequestResponse, members: string[]): Record<string, any> {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers["cache-control"]).toBe("no-store");
  const body = response.json();
  expect(Object.keys(body).sort()).toEqual([...members].sort());
  expect(body.success).toBe(true);
  return body;
}

const ledgerRow = async (id: string) => (await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.id, id)))[0];

describe("intent_gateway", () => {
  it("create-intent answers success, paymentIntentId, clientSecret; confirm with a card succeeds", async () => {
    const created = expectOk(
      await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "usd", orderId: "ig-1", customer: { email: customer.email, name: "Ada" }, metadata: { campaign: "x" }, shippingAddress: address }),
      ["success", "paymentIntentId", "clientSecret"],
    );
    expect(created.paymentIntentId).toMatch(new RegExp(`^pi_demo_${ID}$`));
    expect(created.clientSecret.startsWith(`${created.paymentIntentId}_secret_`)).toBe(true);

    const confirmed = expectOk(await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: created.paymentIntentId, ...card() }), ["success", "status", "paymentIntentId", "orderId", "paymentMethodId"]);
    expect(confirmed).toMatchObject({ status: "succeeded", paymentIntentId: created.paymentIntentId, orderId: "ig-1" });
    expect(confirmed.paymentMethodId).toMatch(new RegExp(`^pm_demo_${ID}$`));

    const row = await ledgerRow(created.paymentIntentId);
    expect(row).toMatchObject({ status: "succeeded", amountCents: AMOUNT, currency: "USD", cardLast4: "4242" });
    expect(row!.paymentMethodToken).toMatch(new RegExp(`^${confirmed.paymentMethodId}\\|cus_demo_${ID}$`));
  });

  it("confirm without a card reads the status and never charges twice", async () => {
    const created = (await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-2", ...card() })).json();
    const first = expectOk(await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: created.paymentIntentId }), ["success", "status", "paymentIntentId", "orderId", "paymentMethodId"]);
    expect(first.status).toBe("succeeded");
    const again = (await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: created.paymentIntentId, ...card("4000000000000002") })).json();
    expect(again).toMatchObject({ status: "succeeded", paymentMethodId: first.paymentMethodId });
  });

  it("confirm refuses an intent without a card, and an unknown intent", async () => {
    const created = (await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-3" })).json();
    const bare = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: created.paymentIntentId });
    expect(bare.statusCode).toBe(400);
    expect(bare.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "cardNumber" });
    const unknown = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: "pi_demo_unknown", ...card() });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers["cache-control"]).toBe("no-store");
  });

  it("a declined intent reads as 402 again without counting a second decline, and can be retried with another card", async () => {
    const created = await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-4" });
    const id = created.json().paymentIntentId;
    expect((await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: id, ...card("4000000000009995") }, { remoteAddress: "10.2.0.1" })).statusCode).toBe(402);
    const read = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: id }, { remoteAddress: "10.2.0.1" });
    expect(read.json()).toEqual({ error: "Payment failed: insufficient_funds", code: "PAYMENT_FAILED", details: "insufficient_funds" });
    const retried = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: id, ...card() }, { remoteAddress: "10.2.0.1" });
    expect(retried.json().status).toBe("succeeded");
  });
});

describe("vault gateways", () => {
  it.each([
    ["vault_gateway_a", "vga", { currency: "EUR" }],
    ["vault_gateway_b", "vgb", { lineItems, shippingAddress: address }],
  ] as const)("%s process-payment answers success, transactionId, orderId, paymentMethodToken, demo", async (provider, prefix, extra) => {
    const body = expectOk(await post(t, `/api/providers/${provider}/process-payment`, { orderId: `${provider}-1`, amount: AMOUNT, customer, billingAddress: address, ...extra, ...card() }), [
      "success",
      "transactionId",
      "orderId",
      "paymentMethodToken",
      "demo",
    ]);
    expect(body).toMatchObject({ orderId: `${provider}-1`, demo: true });
    expect(body.transactionId).toMatch(new RegExp(`^${prefix}_txn_${ID}$`));
    expect(body.paymentMethodToken).toMatch(new RegExp(`^${prefix}_cv_${ID}\\|${body.transactionId}$`));
    // vault_gateway_b: currency defaults to USD.
    expect(await ledgerRow(body.transactionId)).toMatchObject({ amountCents: AMOUNT, currency: provider === "vault_gateway_a" ? "EUR" : "USD", status: "succeeded" });
  });

  it("vault_gateway_a process-upsell charges the vaulted method of the original order", async () => {
    const original = (await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId: "vga-up-1", amount: AMOUNT, currency: "EUR", ...card() })).json();
    const upsell = expectOk(await post(t, "/api/providers/vault_gateway_a/process-upsell", { paymentMethodToken: original.paymentMethodToken, amount: 500, orderId: "vga-up-1-u1", originalOrderId: "vga-up-1" }), [
      "success",
      "transactionId",
      "orderId",
      "originalOrderId",
      "amount",
      "currency",
      "demo",
    ]);
    expect(upsell).toMatchObject({ orderId: "vga-up-1-u1", originalOrderId: "vga-up-1", amount: 500, currency: "EUR", demo: true });
    expect(upsell.transactionId).toMatch(new RegExp(`^vga_txn_${ID}$`));
    expect(await ledgerRow(upsell.transactionId)).toMatchObject({ orderId: "vga-up-1-u1", amountCents: 500, currency: "EUR", status: "succeeded" });
  });

  it("honours Idempotency-Key: a repeat replays the first charge", async () => {
    const payload = { orderId: "vga-idem", amount: AMOUNT, currency: "USD", ...card() };
    const headers = { "idempotency-key": "vga-idem-key" };
    const first = await post(t, "/api/providers/vault_gateway_a/process-payment", payload, { headers });
    const second = await post(t, "/api/providers/vault_gateway_a/process-payment", payload, { headers });
    expect(second.json().transactionId).toBe(first.json().transactionId);
    const charges = await t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, "vga-idem"), eq(demoProviderRecords.kind, "charge")));
    expect(charges).toHaveLength(1);
  });
});

describe("order_crm_a", () => {
  const createOrder = (orderId: string) =>
    post(t, "/api/providers/order_crm_a/create-order", { orderId, customer, shippingAddress: address, billingAddress: address, lineItems, total: AMOUNT, currency: "USD", campaignId: "c1" });

  it("create-order, process-payment and confirm-order answer their members", async () => {
    const order = expectOk(await createOrder("crma-1"), ["success", "crmAOrderId", "demo"]);
    expect(order.crmAOrderId).toMatch(new RegExp(`^crma_ord_${ID}$`));
    expect(order.demo).toBe(true);

    const paid = expectOk(await post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId: "crma-1", ...card() }), ["success", "transactionId", "crmAOrderId"]);
    expect(paid.crmAOrderId).toBe(order.crmAOrderId);
    expect(paid.transactionId).toMatch(new RegExp(`^crma_txn_${ID}$`));
    // Token format: the CRM order id.
    expect(await ledgerRow(paid.transactionId)).toMatchObject({ paymentMethodToken: order.crmAOrderId, amountCents: AMOUNT, currency: "USD" });

    const confirmed = expectOk(await post(t, "/api/providers/order_crm_a/confirm-order", { crmAOrderId: order.crmAOrderId, orderId: "crma-1" }), ["success", "crmAOrderId", "orderId", "status", "demo"]);
    expect(confirmed).toMatchObject({ crmAOrderId: order.crmAOrderId, orderId: "crma-1", status: "confirmed", demo: true });
  });

  it("refuses another order's CRM order (404), a second payment (409) and confirming an unpaid order (409)", async () => {
    const order = (await createOrder("crma-2")).json();
    const foreign = await post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId: "crma-other", ...card() });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: "NOT_FOUND", details: "crmAOrderId" });

    const unpaid = await post(t, "/api/providers/order_crm_a/confirm-order", { crmAOrderId: order.crmAOrderId, orderId: "crma-2" });
    expect(unpaid.statusCode).toBe(409);

    expect((await post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId: "crma-2", ...card() })).statusCode).toBe(200);
    const twice = await post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId: "crma-2", ...card() });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toMatchObject({ error: "Order already paid", code: "CONFLICT" });
  });
});

describe("order_crm_b", () => {
  it("process-payment answers success, transactionId, orderId, crmBOrderId, paymentMethodToken, demo", async () => {
    const body = expectOk(
      await post(t, "/api/providers/order_crm_b/process-payment", { orderId: "crmb-1", campaignId: "c1", customer, billingAddress: address, shippingAddress: address, lineItems, currency: "GBP", ...card() }),
      ["success", "transactionId", "orderId", "crmBOrderId", "paymentMethodToken", "demo"],
    );
    expect(body.transactionId).toMatch(new RegExp(`^crmb_txn_${ID}$`));
    expect(body.crmBOrderId).toMatch(new RegExp(`^crmb_ord_${ID}$`));
    expect(body).toMatchObject({ orderId: "crmb-1", paymentMethodToken: body.crmBOrderId, demo: true });
    expect(await ledgerRow(body.transactionId)).toMatchObject({ amountCents: AMOUNT, currency: "GBP" });
  });
});

describe("concurrent payments of one order", () => {
  it("charge once: one 200, one 409 Order already paid", async () => {
    const order = (
      await post(t, "/api/providers/order_crm_a/create-order", { orderId: "race-1", customer, shippingAddress: address, billingAddress: address, lineItems, total: AMOUNT, currency: "USD" })
    ).json();
    const pay = () => post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId: "race-1", ...card() });
    const answers = await Promise.all([pay(), pay(), pay()]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409, 409]);
    const charges = await t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, "race-1"), eq(demoProviderRecords.kind, "charge")));
    expect(charges).toHaveLength(1);
  });

  it("order_crm_b does not charge a paid orderId again", async () => {
    const body = { orderId: "race-2", campaignId: "c1", customer, billingAddress: address, lineItems, ...card() };
    expect((await post(t, "/api/providers/order_crm_b/process-payment", body)).statusCode).toBe(200);
    const again = await post(t, "/api/providers/order_crm_b/process-payment", body);
    expect(again.statusCode).toBe(409);
  });
});

describe("hosted_store", () => {
  it("create-checkout, complete-checkout and confirm-order answer their members", async () => {
    const draft = expectOk(
      await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "hs-1", lineItems: [{ variantId: "v1", quantity: 1 }], customer: { email: customer.email }, amount: AMOUNT, currency: "USD" }),
      ["success", "checkoutUrl", "storeOrderId", "demo"],
    );
    expect(draft.storeOrderId).toMatch(new RegExp(`^hs_ord_${ID}$`));
    expect(draft.checkoutUrl).toBe(`http://checkout.test/demo/hosted-store/${draft.storeOrderId}`);

    const completed = expectOk(await post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId: draft.storeOrderId, orderId: "hs-1" }), [
      "success",
      "storeOrderId",
      "orderId",
      "transactionId",
      "paymentMethodToken",
      "status",
      "demo",
    ]);
    expect(completed).toMatchObject({ storeOrderId: draft.storeOrderId, orderId: "hs-1", paymentMethodToken: draft.storeOrderId, status: "paid", demo: true });
    expect(completed.transactionId).toMatch(new RegExp(`^hs_txn_${ID}$`));

    const confirmed = expectOk(await post(t, "/api/providers/hosted_store/confirm-order", { storeOrderId: draft.storeOrderId, orderId: "hs-1" }), ["success", "storeOrderId", "orderId", "status", "demo"]);
    expect(confirmed).toMatchObject({ status: "confirmed", storeOrderId: draft.storeOrderId });
  });

  it("create-checkout needs an amount when no checkout exists for the orderId; customer.email is required", async () => {
    const noAmount = await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "hs-2", lineItems: [{ variantId: "v1", quantity: 1 }], customer: { email: customer.email } });
    expect(noAmount.statusCode).toBe(400);
    expect(noAmount.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "amount" });
    const noEmail = await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "hs-2", lineItems: [{ variantId: "v1", quantity: 1 }], customer: {}, amount: AMOUNT });
    expect(noEmail.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "customer.email" });
  });
});

describe("cart_gateway", () => {
  it("create-cart and process-payment answer their members", async () => {
    const cart = expectOk(await post(t, "/api/providers/cart_gateway/create-cart", { orderId: "cart-1", customer, shippingAddress: address, lineItems: [{ itemId: "i1", quantity: 2, price: 500 }] }), ["success", "cartOrderId", "demo"]);
    expect(cart.cartOrderId).toMatch(new RegExp(`^cart_ord_${ID}$`));
    const paid = expectOk(await post(t, "/api/providers/cart_gateway/process-payment", { cartOrderId: cart.cartOrderId, orderId: "cart-1", ...card() }), ["success", "transactionId", "cartOrderId", "demo"]);
    expect(paid).toMatchObject({ cartOrderId: cart.cartOrderId, demo: true });
    expect(paid.transactionId).toMatch(new RegExp(`^cart_txn_${ID}$`));
    expect(await ledgerRow(paid.transactionId)).toMatchObject({ amountCents: 1000, currency: "USD", paymentMethodToken: cart.cartOrderId });
  });
});

describe("request validation", () => {
  it.each([
    ["/api/providers/vault_gateway_a/process-payment", { amount: AMOUNT, currency: "USD", ...card() }, "orderId"],
    ["/api/providers/vault_gateway_a/process-payment", { orderId: "v", amount: "1000", currency: "USD", ...card() }, "amount"],
    ["/api/providers/vault_gateway_a/process-payment", { orderId: "v", amount: AMOUNT, currency: "USD", ...card(), cardNumber: 4242424242424242 }, "cardNumber"],
    ["/api/providers/order_crm_a/create-order", { orderId: "x", customer: { email: "a@b.c", firstName: "A" }, shippingAddress: address, billingAddress: address, lineItems, total: AMOUNT, currency: "USD" }, "customer.lastName"],
    ["/api/providers/order_crm_b/process-payment", { orderId: "x", campaignId: "c", customer, billingAddress: address, lineItems: [{ productId: "p", quantity: 0, price: 1 }], ...card() }, "lineItems.0.quantity"],
    ["/api/providers/cart_gateway/create-cart", { orderId: "x", customer, shippingAddress: { ...address, city: undefined }, lineItems: [{ itemId: "i", quantity: 1, price: 1 }] }, "shippingAddress.city"],
  ])("%s refuses a bad body with details %s", async (url, payload, field) => {
    const response = await post(t, url, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "VALIDATION_ERROR", details: field });
  });
});
