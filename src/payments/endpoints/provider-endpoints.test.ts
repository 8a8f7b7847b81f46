// Every row of SPEC.md "Payment provider endpoints": the happy path answers exactly the listed members
// (and, for "not shown" bodies, those of docs/providers.md), ids carry the provider's prefix, tokens
// have SPEC's formats, and no answer may be cached.
import { and, eq } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/support/app.js";
import { address, AMOUNT, card, customer, post } from "../../../test/support/provider-payments.js";
import { demoProviderRecords } from "../../db/schema/index.js";
import { DEMO_UNIT_PRICE_CENTS } from "../../providers/hosted-store/demo.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";

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

/** A checkout initialized with a token of these claims, as a merchant's customer opens it. */
async function initializedCheckout(claims: Record<string, unknown>): Promise<{ orderId: string }> {
  const order = orderClaims(claims);
  const initialized = await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider: "hosted_store" });
  expect(initialized.statusCode, initialized.body).toBe(200);
  return { orderId: order.orderId as string };
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

  it("confirm with SPEC's body { paymentIntentId } charges an intent without a card as the default test card (demo)", async () => {
    const created = (await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-3" })).json();
    const confirmed = expectOk(await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: created.paymentIntentId }), ["success", "status", "paymentIntentId", "orderId", "paymentMethodId"]);
    expect(confirmed).toMatchObject({ status: "succeeded", orderId: "ig-3" });
    expect(await ledgerRow(created.paymentIntentId)).toMatchObject({ status: "succeeded", amountCents: AMOUNT, cardLast4: "4242" });
    const unknown = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: "pi_demo_unknown", ...card() });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers["cache-control"]).toBe("no-store");
  });

  it("a card given at create keeps its test-card behaviour when confirmed without one; a paid intent is read, never charged again", async () => {
    const paid = (await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-2", ...card() })).json();
    const read = expectOk(await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: paid.paymentIntentId }), ["success", "status", "paymentIntentId", "orderId", "paymentMethodId"]);
    expect(read.status).toBe("succeeded");
    // Another card on the paid intent reads it too (issue 31): it is this intent's payment, nothing more is charged.
    const again = expectOk(await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: paid.paymentIntentId, ...card("5555555555554444") }), ["success", "status", "paymentIntentId", "orderId", "paymentMethodId"]);
    expect(again).toEqual(read);
    expect(await ledgerRow(paid.paymentIntentId)).toMatchObject({ status: "succeeded", cardLast4: "4242" });

    const threeDs = (await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-2b", ...card("4000000000003220") })).json();
    expect((await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: threeDs.paymentIntentId })).json().status).toBe("requires_action");
    expect((await ledgerRow(threeDs.paymentIntentId))!.status).toBe("requires_action");

    const declined = await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-2c", ...card("4000000000000002") }, { remoteAddress: "10.2.0.9" });
    expect(declined.statusCode).toBe(402);
    const declinedId = (await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, "ig-2c")))[0]!.id;
    const readDeclined = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: declinedId }, { remoteAddress: "10.2.0.9" });
    expect(readDeclined.json()).toMatchObject({ code: "PAYMENT_FAILED", details: "card_declined" });
  });

  // Issue 31 item 2: create-intent with the card fields, then confirm with the same card fields (as a
  // client SDK confirms) answered 409 ALREADY_PAID for the intent's own payment.
  it("create-intent with the card, then confirm with the same card: never 'already paid' for the intent's own payment or an unpaid one", async () => {
    const confirmWithCard = (paymentIntentId: string, cardNumber?: string, remoteAddress?: string) =>
      post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId, ...card(cardNumber) }, { remoteAddress });
    const intentsOf = async (orderId: string) => (await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, orderId))).map((r) => `${r.id} ${r.status}`);

    // Paid at create: confirm answers its success, and no second charge or intent is made.
    const paid = (await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-card-twice", ...card() })).json();
    const held = await intentsOf("ig-card-twice");
    const confirmed = expectOk(await confirmWithCard(paid.paymentIntentId), ["success", "status", "paymentIntentId", "orderId", "paymentMethodId"]);
    expect(confirmed).toMatchObject({ status: "succeeded", paymentIntentId: paid.paymentIntentId, orderId: "ig-card-twice" });
    expect(await intentsOf("ig-card-twice")).toEqual(held);
    expect(held).toEqual([`${paid.paymentIntentId} succeeded`]);

    // Nothing charged at create (3-D Secure pending, a decline): confirm with the card is a new attempt, never 409.
    const pending = (await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-card-3ds", ...card("4000000000003220") })).json();
    const again = await confirmWithCard(pending.paymentIntentId, "4000000000003220");
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().status).toBe("requires_action");
    const nowPaid = await confirmWithCard(pending.paymentIntentId);
    expect(nowPaid.statusCode, nowPaid.body).toBe(200);
    expect(nowPaid.json().status).toBe("succeeded");

    const declined = await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-card-declined", ...card("4000000000000002") }, { remoteAddress: "10.2.0.31" });
    expect(declined.statusCode).toBe(402);
    const declinedId = (await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, "ig-card-declined")))[0]!.id;
    const retried = await confirmWithCard(declinedId, "4000000000000002", "10.2.0.31");
    expect(retried.json()).toMatchObject({ code: "PAYMENT_FAILED" });
    expect(expectOk(await confirmWithCard(declinedId, undefined, "10.2.0.31"), ["success", "status", "paymentIntentId", "orderId", "paymentMethodId"]).status).toBe("succeeded");
  });

  it("a declined intent reads as 402 again without counting a second decline, and can be retried with another card", async () => {
    const created = await post(t, "/api/providers/intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "ig-4" });
    const id = created.json().paymentIntentId;
    expect((await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: id, ...card("4000000000009995") }, { remoteAddress: "10.2.0.1" })).statusCode).toBe(402);
    const read = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: id }, { remoteAddress: "10.2.0.1" });
    expect(read.json()).toMatchObject({ error: "Payment failed: insufficient_funds", code: "PAYMENT_FAILED", details: "insufficient_funds" });
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

  it("refuses another order's CRM order (404), a second payment with another card (409) and confirming an unpaid order (409)", async () => {
    const order = (await createOrder("crma-2")).json();
    const foreign = await post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId: "crma-other", ...card() });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: "NOT_FOUND", details: "crmAOrderId" });

    const unpaid = await post(t, "/api/providers/order_crm_a/confirm-order", { crmAOrderId: order.crmAOrderId, orderId: "crma-2" });
    expect(unpaid.statusCode).toBe(409);

    expect((await post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId: "crma-2", ...card() })).statusCode).toBe(200);
    const twice = await post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId: "crma-2", ...card("5555555555554444") });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
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
  it("identical concurrent payments charge once and all answer the first charge", async () => {
    const order = (
      await post(t, "/api/providers/order_crm_a/create-order", { orderId: "race-1", customer, shippingAddress: address, billingAddress: address, lineItems, total: AMOUNT, currency: "USD" })
    ).json();
    const pay = () => post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: order.crmAOrderId, orderId: "race-1", ...card() });
    const answers = await Promise.all([pay(), pay(), pay()]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((a) => a.json().transactionId)).size).toBe(1);
    const charges = await t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, "race-1"), eq(demoProviderRecords.kind, "charge")));
    expect(charges).toHaveLength(1);
  });

  it("order_crm_b does not charge a paid orderId again", async () => {
    const body = { orderId: "race-2", campaignId: "c1", customer, billingAddress: address, lineItems, ...card() };
    expect((await post(t, "/api/providers/order_crm_b/process-payment", body)).statusCode).toBe(200);
    const again = await post(t, "/api/providers/order_crm_b/process-payment", { ...body, campaignId: "c2" });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
  });

  it("hosted_store complete-checkout: concurrent completions charge once; another draft of the paid order is refused", async () => {
    const draft = (await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "race-3", lineItems: [{ variantId: "v1", quantity: 1 }], customer: { email: customer.email } })).json();
    const complete = () => post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId: draft.storeOrderId, orderId: "race-3" });
    const answers = await Promise.all([complete(), complete(), complete()]);
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200]);
    const other = (await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "race-3", lineItems: [{ variantId: "v2", quantity: 1 }], customer: { email: customer.email } })).json();
    const second = await post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId: other.storeOrderId, orderId: "race-3" });
    expect(second.json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
    const charges = await t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, "race-3"), eq(demoProviderRecords.status, "paid")));
    expect(charges).toHaveLength(1);
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

  it("create-checkout with SPEC's body prices the draft: the checkout's amount, else the line items' prices, else the demo catalogue", async () => {
    const spec = { lineItems: [{ variantId: "v1", quantity: 3 }], customer: { email: customer.email } };
    const catalogue = expectOk(await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "hs-2", ...spec }), ["success", "checkoutUrl", "storeOrderId", "demo"]);
    expect(await ledgerRow(catalogue.storeOrderId)).toMatchObject({ amountCents: 3 * DEMO_UNIT_PRICE_CENTS, currency: "USD" });

    const priced = (await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "hs-3", ...spec, lineItems: [{ variantId: "v1", quantity: 2, price: 1250 }, { variantId: "v2", quantity: 1 }] })).json();
    expect(await ledgerRow(priced.storeOrderId)).toMatchObject({ amountCents: 2 * 1250 + DEMO_UNIT_PRICE_CENTS });

    const { orderId } = await initializedCheckout({ amount: 4321, currency: "EUR" });
    const fromCheckout = (await post(t, "/api/providers/hosted_store/create-checkout", { orderId, ...spec })).json();
    expect(await ledgerRow(fromCheckout.storeOrderId)).toMatchObject({ amountCents: 4321, currency: "EUR" });
  });

  it("create-checkout refuses a total outside the amount limits and a customer without email", async () => {
    const free = await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "hs-4", lineItems: [{ variantId: "v1", quantity: 1, price: 0 }], customer: { email: customer.email } });
    expect(free.statusCode).toBe(400);
    expect(free.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "lineItems" });
    const huge = await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "hs-4", lineItems: [{ variantId: "v1", quantity: 10_000, price: 100_000_000_00 }], customer: { email: customer.email } });
    expect(huge.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "lineItems" });
    const noEmail = await post(t, "/api/providers/hosted_store/create-checkout", { orderId: "hs-4", lineItems: [{ variantId: "v1", quantity: 1 }], customer: {}, amount: AMOUNT });
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
