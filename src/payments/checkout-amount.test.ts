// Issue 31 item 2: a payment of another amount or currency than the initialized checkout's was charged
// (vault_gateway_a process-payment with 4000 for a 5000 checkout → 200), could never complete (400
// PAYMENT_NOT_VERIFIED) and then blocked the right payment (409 ALREADY_PAID). Now every card-taking
// endpoint (and every endpoint that fixes what a later card payment charges) refuses it with 400 naming
// the member, before the provider is asked: the demo providers' ledger, which is what a real provider
// would hold, is left exactly as it was, no claim stays on the order, no decline is counted; then the
// right payment succeeds and completes.
import { and, eq, inArray } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { orderClaims, signToken } from "../../test/support/checkout.js";
import { completionBody } from "../../test/support/completed-checkout.js";
import { address, AMOUNT, card, customer, post } from "../../test/support/provider-payments.js";
import { demoProviderRecords, orderCharges, paymentDeclines } from "../db/schema/index.js";
import type { PaymentProviderType } from "../providers/types.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const WRONG_AMOUNT = AMOUNT - 600;
const lineItems = (total: number) => [{ productId: "p1", quantity: 1, price: total }];
const crmAOrder = (orderId: string, total: number, currency: string) =>
  post(t, "/api/providers/order_crm_a/create-order", { orderId, customer, shippingAddress: address, billingAddress: address, lineItems: lineItems(total), total, currency });
const cart = (orderId: string, total: number, currency: string) =>
  post(t, "/api/providers/cart_gateway/create-cart", { orderId, customer, shippingAddress: address, lineItems: [{ itemId: "i1", quantity: 1, price: total }], currency });
const draft = (orderId: string, amount: number, currency: string) =>
  post(t, "/api/providers/hosted_store/create-checkout", { orderId, lineItems: [{ variantId: "v1", quantity: 1 }], customer: { email: customer.email }, amount, currency });
const intent = (orderId: string, amount: number, currency: string, cardFields = {}) => post(t, "/api/providers/intent_gateway/create-intent", { orderId, amount, currency, ...cardFields });

/** Provider-side orders made for the orderId before its checkout was initialized (another amount, another currency): a stale page could still pay them. */
type Stale = { amount: string; currency: string };
/** A refused attempt: the response and the member its `details` must name. */
type Wrong = [label: string, attempt: () => Promise<LightMyRequestResponse>, field: string];

interface Case {
  provider: PaymentProviderType;
  /** Before initialize: provider orders of another amount and of another currency (their ids). */
  stale?(orderId: string): Promise<Stale>;
  wrong(orderId: string, stale: Stale | undefined): Wrong[];
  /** The right payment, as the checkout page makes it; its transaction and provider order id. */
  pay(orderId: string, providerOrderId: string): Promise<{ transactionId: string; providerOrderId?: string }>;
}

const ok = (response: LightMyRequestResponse) => {
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Record<string, string>;
};

const CASES: Case[] = [
  {
    provider: "vault_gateway_a",
    wrong: (orderId) => [
      ["process-payment, another amount", () => post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: WRONG_AMOUNT, currency: "USD", ...card() }), "amount"],
      ["process-payment, another currency", () => post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: AMOUNT, currency: "eur", ...card() }), "currency"],
    ],
    pay: async (orderId) => ok(await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: AMOUNT, currency: "usd", ...card() })) as { transactionId: string },
  },
  {
    provider: "vault_gateway_b",
    wrong: (orderId) => [
      ["process-payment, another amount", () => post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: WRONG_AMOUNT, ...card() }), "amount"],
      ["process-payment, another currency", () => post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: AMOUNT, currency: "EUR", ...card() }), "currency"],
    ],
    pay: async (orderId) => ok(await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: AMOUNT, ...card() })) as { transactionId: string },
  },
  {
    provider: "intent_gateway",
    stale: async (orderId) => ({ amount: ok(await intent(orderId, WRONG_AMOUNT, "USD")).paymentIntentId!, currency: ok(await intent(orderId, AMOUNT, "EUR")).paymentIntentId! }),
    wrong: (orderId, stale) => [
      ["create-intent with the card, another amount", () => intent(orderId, WRONG_AMOUNT, "USD", card()), "amount"],
      ["create-intent with the card, another currency", () => intent(orderId, AMOUNT, "EUR", card()), "currency"],
      ["create-intent without a card, another amount (confirm would charge it)", () => intent(orderId, WRONG_AMOUNT, "USD"), "amount"],
      ["confirm with the card, an intent of another amount", () => post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: stale!.amount, ...card() }), "amount"],
      ["confirm without a card (demo charges it), an intent of another amount", () => post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: stale!.amount }), "amount"],
      ["confirm with the card, an intent of another currency", () => post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: stale!.currency, ...card() }), "currency"],
    ],
    pay: async (_orderId, paymentIntentId) => {
      const confirmed = ok(await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId, ...card() }));
      return { transactionId: confirmed.paymentIntentId!, providerOrderId: confirmed.paymentIntentId! };
    },
  },
  {
    provider: "order_crm_a",
    stale: async (orderId) => ({ amount: ok(await crmAOrder(orderId, WRONG_AMOUNT, "USD")).crmAOrderId!, currency: ok(await crmAOrder(orderId, AMOUNT, "EUR")).crmAOrderId! }),
    wrong: (orderId, stale) => [
      ["create-order, another total", () => crmAOrder(orderId, WRONG_AMOUNT, "USD"), "total"],
      ["create-order, another currency", () => crmAOrder(orderId, AMOUNT, "EUR"), "currency"],
      ["process-payment of a CRM order of another total", () => post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: stale!.amount, orderId, ...card() }), "amount"],
      ["process-payment of a CRM order of another currency", () => post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId: stale!.currency, orderId, ...card() }), "currency"],
    ],
    pay: async (orderId, crmAOrderId) => {
      const paid = ok(await post(t, "/api/providers/order_crm_a/process-payment", { crmAOrderId, orderId, ...card() }));
      return { transactionId: paid.transactionId!, providerOrderId: paid.crmAOrderId! };
    },
  },
  {
    provider: "order_crm_b",
    wrong: (orderId) => [
      ["process-payment, line items of another total", () => post(t, "/api/providers/order_crm_b/process-payment", { orderId, customer, billingAddress: address, lineItems: lineItems(WRONG_AMOUNT), ...card() }), "lineItems"],
      ["process-payment, another currency", () => post(t, "/api/providers/order_crm_b/process-payment", { orderId, customer, billingAddress: address, lineItems: lineItems(AMOUNT), currency: "EUR", ...card() }), "currency"],
    ],
    pay: async (orderId) => {
      const paid = ok(await post(t, "/api/providers/order_crm_b/process-payment", { orderId, customer, billingAddress: address, lineItems: lineItems(AMOUNT), currency: "USD", ...card() }));
      return { transactionId: paid.transactionId!, providerOrderId: paid.crmBOrderId! };
    },
  },
  {
    provider: "cart_gateway",
    stale: async (orderId) => ({ amount: ok(await cart(orderId, WRONG_AMOUNT, "USD")).cartOrderId!, currency: ok(await cart(orderId, AMOUNT, "EUR")).cartOrderId! }),
    wrong: (orderId, stale) => [
      ["create-cart, line items of another total", () => cart(orderId, WRONG_AMOUNT, "USD"), "lineItems"],
      ["create-cart, another currency", () => cart(orderId, AMOUNT, "EUR"), "currency"],
      ["process-payment of a cart of another total", () => post(t, "/api/providers/cart_gateway/process-payment", { cartOrderId: stale!.amount, orderId, ...card() }), "amount"],
      ["process-payment of a cart of another currency", () => post(t, "/api/providers/cart_gateway/process-payment", { cartOrderId: stale!.currency, orderId, ...card() }), "currency"],
    ],
    pay: async (orderId) => {
      const cartOrderId = ok(await cart(orderId, AMOUNT, "USD")).cartOrderId!;
      const paid = ok(await post(t, "/api/providers/cart_gateway/process-payment", { cartOrderId, orderId, ...card() }));
      return { transactionId: paid.transactionId!, providerOrderId: paid.cartOrderId! };
    },
  },
  {
    provider: "hosted_store",
    stale: async (orderId) => ({ amount: ok(await draft(orderId, WRONG_AMOUNT, "USD")).storeOrderId!, currency: ok(await draft(orderId, AMOUNT, "EUR")).storeOrderId! }),
    wrong: (orderId, stale) => [
      ["create-checkout, another amount", () => draft(orderId, WRONG_AMOUNT, "USD"), "amount"],
      ["create-checkout, another currency", () => draft(orderId, AMOUNT, "EUR"), "currency"],
      ["complete-checkout of a draft of another amount", () => post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId: stale!.amount, orderId }), "amount"],
      ["complete-checkout of a draft of another currency", () => post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId: stale!.currency, orderId }), "currency"],
    ],
    pay: async (orderId, storeOrderId) => {
      const paid = ok(await post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId, orderId }));
      return { transactionId: paid.transactionId!, providerOrderId: paid.storeOrderId! };
    },
  },
];

/** What the demo providers hold for the order: every record with its state. */
const ledgerOf = async (orderId: string) =>
  (await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, orderId))).map((r) => `${r.kind} ${r.id} ${r.status} ${r.amountCents} ${r.currency}`).sort();
const succeededCharges = async (orderId: string) =>
  (
    await t.deps.database.db
      .select()
      .from(demoProviderRecords)
      .where(and(eq(demoProviderRecords.orderId, orderId), inArray(demoProviderRecords.kind, ["charge", "payment_intent"]), eq(demoProviderRecords.status, "succeeded")))
  ).length;

describe.each(CASES)("$provider, checkout of 10.00 USD", (c) => {
  it("another amount or currency is 400 naming the member before the provider is asked; then the right payment succeeds and completes", async () => {
    const order = orderClaims({ amount: AMOUNT, currency: "USD", provider: c.provider });
    const orderId = order.orderId as string;
    const stale = await c.stale?.(orderId);
    const init = await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider: c.provider });
    expect(init.statusCode, init.body).toBe(200);
    const ledgerBefore = await ledgerOf(orderId);

    for (const [label, attempt, field] of c.wrong(orderId, stale)) {
      const refused = await attempt();
      expect(refused.statusCode, `${label}: ${refused.body}`).toBe(400);
      expect(refused.json(), label).toMatchObject({ code: "VALIDATION_ERROR", details: field });
      expect(refused.json().error, label).toMatch(new RegExp(`^Invalid request: ${field} differs from the checkout's (amount|currency)$`));
    }
    expect(await ledgerOf(orderId)).toEqual(ledgerBefore);
    expect(await t.deps.database.db.select().from(orderCharges).where(eq(orderCharges.orderId, orderId))).toEqual([]);
    expect(await t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId))).toEqual([]);

    const paid = await c.pay(orderId, init.json().providerOrderId);
    const done = await post(t, "/api/checkout/complete", completionBody({ orderId, provider: c.provider, ...paid }));
    expect(done.statusCode, done.body).toBe(200);
    expect(await succeededCharges(orderId)).toBe(1);
  });
});

describe("hosted_store's demo checkout page", () => {
  it("refuses to pay a draft of another amount than the checkout's, charging nothing", async () => {
    const order = orderClaims({ amount: AMOUNT, currency: "USD", provider: "hosted_store" });
    const orderId = order.orderId as string;
    const storeOrderId = ok(await draft(orderId, WRONG_AMOUNT, "USD")).storeOrderId!;
    expect((await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider: "hosted_store" })).statusCode).toBe(200);
    const ledgerBefore = await ledgerOf(orderId);
    const page = await t.app.inject({
      method: "POST",
      url: `/demo/hosted-store/${storeOrderId}`,
      payload: new URLSearchParams({ cardNumber: "4242424242424242", cardExp: "12 / 31", cardCvv: "123" }).toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(page.statusCode).toBe(400);
    expect(page.body).toContain("This order&#39;s total is not the checkout&#39;s any more.");
    expect(await ledgerOf(orderId)).toEqual(ledgerBefore);
    expect(await t.deps.database.db.select().from(orderCharges).where(eq(orderCharges.orderId, orderId))).toEqual([]);
  });
});

describe("without an initialized checkout", () => {
  it("the provider endpoints charge what they are given, as before (nothing to compare with)", async () => {
    const paid = await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId: "no-checkout-amount", amount: WRONG_AMOUNT, currency: "EUR", ...card() });
    expect(paid.statusCode, paid.body).toBe(200);
  });
});
