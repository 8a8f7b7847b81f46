// SPEC "Checkout" complete with CONTRACT §7, §8, §13, §19, §26, §33: a verified payment becomes one
// order with its line items, CRM recording, commission and three outbox events; anything unverified,
// unknown, expired or conflicting creates nothing. Payments go through the demo providers' endpoints.
import { and, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../test/support/database.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { createBrand, orderClaims, post, signToken } from "../../test/support/checkout.js";
import { checkouts, commissions, orderLineItems, orders, outboxEvents } from "../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const CARD = { cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2030", cardCvv: "123" };
const BILLING = { line1: "1 Main St", city: "Springfield", state: "IL", postalCode: "62701", country: "US" };
const SHIPPING = { line1: "2 Side St", line2: "Unit 3", city: "Shelbyville", state: "IL", postalCode: "62565", country: "US" };
const CUSTOMER = { firstName: "Jane", lastName: "Doe", phone: "+1 555 0100" };

/** Initializes a checkout for new order claims and pays it with vault_gateway_b through its endpoint. */
async function paidCheckout(options: { claims?: Record<string, unknown>; expiresInSeconds?: number } = {}) {
  const claims = orderClaims(options.claims);
  const token = await signToken(t, claims, { expiresInSeconds: options.expiresInSeconds });
  const init = await post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
  expect(init.statusCode).toBe(200);
  const pay = await post(t, "/api/providers/vault_gateway_b/process-payment", {
    orderId: claims.orderId,
    amount: claims.amount,
    currency: claims.currency,
    ...CARD,
  });
  expect(pay.statusCode, pay.body).toBe(200);
  const { transactionId, paymentMethodToken } = json(pay);
  expect(typeof transactionId).toBe("string");
  return { claims, orderId: claims.orderId as string, amount: claims.amount as number, transactionId: transactionId as string, paymentMethodToken: paymentMethodToken as string };
}

function completeBody(paid: { orderId: string; transactionId: string; amount: number }, extra: Record<string, unknown> = {}) {
  return {
    orderId: paid.orderId,
    transactionId: paid.transactionId,
    provider: "vault_gateway_b",
    customerEmail: "jane@example.com",
    customerName: "Jane Doe",
    amount: paid.amount,
    currency: "USD",
    ...extra,
  };
}

const complete = (body: unknown) => post(t, "/api/checkout/complete", body);
const ordersOf = (orderId: string) => db().select().from(orders).where(eq(orders.orderId, orderId));
const checkoutsOf = (orderId: string) => db().select().from(checkouts).where(eq(checkouts.orderId, orderId));
const commissionsOf = (orderId: string) => db().select().from(commissions).where(eq(commissions.orderId, orderId));
async function completionEventsOf(orderId: string) {
  const [checkout] = await checkoutsOf(orderId);
  return db()
    .select()
    .from(outboxEvents)
    .where(and(eq(outboxEvents.checkoutId, checkout!.id), inArray(outboxEvents.type, ["checkout.completed", "payment.succeeded", "order.confirmed"])));
}

/** Nothing of a completion exists for this order: no order, checkout still open, no events, no commission. */
async function expectNothingCreated(orderId: string) {
  expect(await ordersOf(orderId)).toHaveLength(0);
  expect(await commissionsOf(orderId)).toHaveLength(0);
  expect((await checkoutsOf(orderId))[0]!.status).toBe("initialized");
  expect(await completionEventsOf(orderId)).toHaveLength(0);
}

describe("complete: happy path", () => {
  it("creates the order with line items, addresses and payment method token, and three events", async () => {
    const paid = await paidCheckout({ claims: { webhookUrl: "https://merchant.example/hook" } });
    const lineItems = [
      { id: "p1", name: "Mug", quantity: 2, unitPrice: 1500, sku: "MUG-1" },
      { id: "p2", quantity: 1, unitPrice: 2000 },
    ];
    const res = await complete(
      completeBody(paid, { customer: { ...CUSTOMER, ipAddress: "203.0.113.9" }, billingAddress: BILLING, shippingAddress: SHIPPING, lineItems, affId: "aff1", subId: "sub1" }),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = json(res);
    expect(body).toEqual({ success: true, orderId: paid.orderId, transactionId: paid.transactionId, paymentMethodToken: paid.paymentMethodToken, provider: "vault_gateway_b" });

    const [order] = await ordersOf(paid.orderId);
    expect(order).toMatchObject({
      kind: "checkout",
      transactionId: paid.transactionId,
      provider: "vault_gateway_b",
      amountCents: paid.amount,
      currency: "USD",
      customerEmail: "jane@example.com",
      customerName: "Jane Doe",
      billingAddress: BILLING,
      shippingAddress: SHIPPING,
      paymentMethodToken: paid.paymentMethodToken,
      affId: "aff1",
      subId: "sub1",
      crmStatus: null,
      result: body,
    });
    expect(order!.customer).toMatchObject({ ...CUSTOMER, ipAddress: "203.0.113.9" });
    const items = await db().select().from(orderLineItems).where(eq(orderLineItems.orderRef, order!.id));
    expect(items.map(({ itemId, name, quantity, unitPriceCents, sku }) => ({ itemId, name, quantity, unitPriceCents, sku })).sort((a, b) => a.itemId.localeCompare(b.itemId))).toEqual([
      { itemId: "p1", name: "Mug", quantity: 2, unitPriceCents: 1500, sku: "MUG-1" },
      { itemId: "p2", name: null, quantity: 1, unitPriceCents: 2000, sku: null },
    ]);
    const [checkout] = await checkoutsOf(paid.orderId);
    expect(checkout).toMatchObject({ status: "completed" });
    expect(checkout!.completedAt).toBeInstanceOf(Date);
    expect(order!.checkoutId).toBe(checkout!.id);

    const events = await completionEventsOf(paid.orderId);
    expect(events.map((e) => e.type).sort()).toEqual(["checkout.completed", "order.confirmed", "payment.succeeded"]);
    for (const event of events) {
      expect(event).toMatchObject({ brandId: checkout!.brandId, webhookUrl: "https://merchant.example/hook" });
      expect(event.payload).toMatchObject({ orderId: paid.orderId, transactionId: paid.transactionId, amount: paid.amount, currency: "USD" });
      expect(JSON.stringify(event.payload)).not.toContain(paid.paymentMethodToken);
    }
    expect(await commissionsOf(paid.orderId)).toHaveLength(0);
  });

  it("takes the line items of the token when the request has none", async () => {
    const paid = await paidCheckout({ claims: { lineItems: [{ id: "tok-1", name: "From token", quantity: 1, unitPrice: 5000 }] } });
    expect((await complete(completeBody(paid))).statusCode).toBe(200);
    const [order] = await ordersOf(paid.orderId);
    const items = await db().select().from(orderLineItems).where(eq(orderLineItems.orderRef, order!.id));
    expect(items).toMatchObject([{ itemId: "tok-1", name: "From token", quantity: 1, unitPriceCents: 5000 }]);
  });

  it("completes an intent_gateway payment confirmed through its endpoint", async () => {
    const claims = orderClaims({ amount: 2599, currency: "EUR" });
    const init = json(await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "intent_gateway" }));
    const confirm = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: init.providerOrderId, ...CARD });
    expect(confirm.statusCode, confirm.body).toBe(200);
    expect(json(confirm).status).toBe("succeeded");
    const res = await complete({ ...completeBody({ orderId: claims.orderId as string, transactionId: init.providerOrderId, amount: 2599 }), provider: "intent_gateway", currency: "EUR" });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).paymentMethodToken).toMatch(/^[^|]+\|[^|]+$/);
  });
});

describe("complete: CRM recording", () => {
  it("records in the requested CRM when customer and billingAddress are present", async () => {
    const paid = await paidCheckout();
    const res = await complete(completeBody(paid, { recordInCrm: true, crmProvider: "order_crm_b", customer: CUSTOMER, billingAddress: BILLING }));
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body.crmProvider).toBe("order_crm_b");
    expect(typeof body.crmOrderId).toBe("string");
    expect(Object.keys(body).sort()).toEqual(["crmOrderId", "crmProvider", "orderId", "paymentMethodToken", "provider", "success", "transactionId"]);
    expect((await ordersOf(paid.orderId))[0]).toMatchObject({ crmProvider: "order_crm_b", crmOrderId: body.crmOrderId, crmStatus: "recorded" });
  });

  it("uses order_crm_a when no crmProvider is given and the payment was not made in a CRM", async () => {
    const paid = await paidCheckout();
    const body = json(await complete(completeBody(paid, { recordInCrm: true, customer: CUSTOMER, billingAddress: BILLING })));
    expect(body.crmProvider).toBe("order_crm_a");
    expect(typeof body.crmOrderId).toBe("string");
  });

  it.each([
    ["customer", { billingAddress: BILLING }],
    ["billingAddress", { customer: CUSTOMER }],
  ])("skips CRM recording without %s", async (_missing, members) => {
    const paid = await paidCheckout();
    const res = await complete(completeBody(paid, { recordInCrm: true, crmProvider: "order_crm_b", ...members }));
    expect(res.statusCode).toBe(200);
    expect(json(res).crmOrderId).toBeUndefined();
    expect(json(res).crmProvider).toBeUndefined();
    expect((await ordersOf(paid.orderId))[0]).toMatchObject({ crmProvider: "order_crm_b", crmOrderId: null, crmStatus: "skipped" });
  });

  it("records nothing for recordInCrm false or crmProvider none", async () => {
    for (const extra of [{ recordInCrm: false, crmProvider: "order_crm_b" }, { recordInCrm: true, crmProvider: "none" }]) {
      const paid = await paidCheckout();
      const body = json(await complete(completeBody(paid, { ...extra, customer: CUSTOMER, billingAddress: BILLING })));
      expect(body.success).toBe(true);
      expect(body.crmOrderId).toBeUndefined();
      expect((await ordersOf(paid.orderId))[0]!.crmStatus).toBeNull();
    }
  });

  it("fails without billingAddress when the CRM's failOnCrmError is on, creating nothing", async () => {
    const { brandId } = await createBrand(t, {
      providers: [{ provider: "vault_gateway_b" }, { provider: "order_crm_b", publicValues: { failOnCrmError: true } }],
    });
    const paid = await paidCheckout({ claims: { brandId } });
    const res = await complete(completeBody(paid, { recordInCrm: true, crmProvider: "order_crm_b", customer: CUSTOMER }));
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "billingAddress" });
    await expectNothingCreated(paid.orderId);
  });

  it("refuses an unknown crmProvider", async () => {
    const paid = await paidCheckout();
    const res = await complete(completeBody(paid, { recordInCrm: true, crmProvider: "salesforce" }));
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "crmProvider" });
  });
});

describe("complete: commissions", () => {
  it("creates a pending percentage commission, rounded to the cent", async () => {
    const paid = await paidCheckout({ claims: { amount: 1999 } });
    const salesAttribution = { salespersonId: "sp_1", salespersonName: "Sam Seller", salespersonEmail: "sam@example.com", teamId: "t1", commissionRate: 0.15, source: "phone" };
    const res = await complete(completeBody(paid, { salesAttribution }));
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body.commissionId).toMatch(/^com_/);
    const [commission] = await commissionsOf(paid.orderId);
    const [order] = await ordersOf(paid.orderId);
    expect(commission).toMatchObject({
      id: body.commissionId,
      orderRef: order!.id,
      organizationId: "org_default",
      salespersonId: "sp_1",
      salespersonName: "Sam Seller",
      salespersonEmail: "sam@example.com",
      teamId: "t1",
      source: "phone",
      orderAmountCents: 1999,
      commissionAmountCents: 300,
      commissionRate: 0.15,
      commissionType: "percentage",
      status: "pending",
    });
  });

  it("creates a fixed commission of commissionRate cents", async () => {
    const paid = await paidCheckout();
    const body = json(await complete(completeBody(paid, { salesAttribution: { salespersonId: "sp_2", commissionRate: 250, commissionType: "fixed" } })));
    expect((await commissionsOf(paid.orderId))[0]).toMatchObject({ id: body.commissionId, commissionAmountCents: 250, commissionType: "fixed", orderAmountCents: 5000 });
  });

  it("uses the token's salesAttribution when the request has none", async () => {
    const paid = await paidCheckout({ claims: { salesAttribution: { salespersonId: "sp_tok", salespersonName: "Tok", commissionRate: 0.1 } } });
    const body = json(await complete(completeBody(paid)));
    expect((await commissionsOf(paid.orderId))[0]).toMatchObject({ id: body.commissionId, salespersonId: "sp_tok", commissionAmountCents: 500 });
  });

  it("refuses a percentage above 1", async () => {
    const paid = await paidCheckout();
    const res = await complete(completeBody(paid, { salesAttribution: { salespersonId: "sp_3", commissionRate: 10 } }));
    expect(res.statusCode).toBe(400);
    expect(json(res).details).toBe("salesAttribution.commissionRate");
    await expectNothingCreated(paid.orderId);
  });
});

describe("complete: refusals", () => {
  it("answers PAYMENT_NOT_VERIFIED for an unknown transaction", async () => {
    const paid = await paidCheckout();
    const res = await complete(completeBody(paid, { transactionId: "vgb_txn_made_up" }));
    expect(res.statusCode).toBe(400);
    expect(json(res).code).toBe("PAYMENT_NOT_VERIFIED");
    await expectNothingCreated(paid.orderId);
  });

  it("answers PAYMENT_NOT_VERIFIED for another order's transaction", async () => {
    const mine = await paidCheckout();
    const other = await paidCheckout();
    const res = await complete(completeBody(mine, { transactionId: other.transactionId }));
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "PAYMENT_NOT_VERIFIED", details: "order_mismatch" });
    await expectNothingCreated(mine.orderId);
  });

  it("answers PAYMENT_NOT_VERIFIED when the payment's amount differs from the checkout's", async () => {
    // Once the checkout is initialized the provider endpoints refuse another amount (issue 31); a payment
    // made before it was, for the same orderId, is still one completion must not accept.
    const claims = orderClaims();
    const early = await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId: claims.orderId, amount: 100, currency: claims.currency, ...CARD });
    expect(early.statusCode, early.body).toBe(200);
    expect((await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "vault_gateway_b" })).statusCode).toBe(200);
    const paid = { orderId: claims.orderId as string, amount: claims.amount as number, transactionId: json(early).transactionId as string };
    const res = await complete(completeBody(paid));
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "PAYMENT_NOT_VERIFIED", details: "amount_mismatch" });
    // The client's amount matching the payment does not help: the checkout's amount is the truth.
    const lowered = await complete(completeBody(paid, { amount: 100 }));
    expect(json(lowered)).toMatchObject({ code: "PAYMENT_NOT_VERIFIED", details: "amount_mismatch" });
    await expectNothingCreated(paid.orderId);
  });

  it("answers PAYMENT_NOT_VERIFIED for a declined payment", async () => {
    const claims = orderClaims();
    await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "intent_gateway" });
    const init = json(await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "intent_gateway" }));
    const confirm = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: init.providerOrderId, ...CARD, cardNumber: "4000000000000002" });
    expect(confirm.statusCode).toBe(402);
    const res = await complete({ ...completeBody({ orderId: claims.orderId as string, transactionId: init.providerOrderId, amount: 5000 }), provider: "intent_gateway" });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "PAYMENT_NOT_VERIFIED", details: "payment_failed" });
  });

  it("answers CHECKOUT_NOT_FOUND for an order never initialized", async () => {
    const res = await complete(completeBody({ orderId: "never-initialized", transactionId: "x", amount: 100 }));
    expect(res.statusCode).toBe(404);
    expect(json(res).code).toBe("CHECKOUT_NOT_FOUND");
  });

  it("answers CHECKOUT_EXPIRED past the grace period after the token's exp, not before", async () => {
    const late = await paidCheckout({ expiresInSeconds: 60 });
    const onTime = await paidCheckout({ expiresInSeconds: 60 });
    // CHECKOUT_COMPLETION_GRACE_SECONDS defaults to 3600.
    t.clock.advance((60 + 3600) * 1000);
    expect((await complete(completeBody(onTime))).statusCode).toBe(200);
    t.clock.advance(1000);
    const res = await complete(completeBody(late));
    expect(res.statusCode).toBe(410);
    expect(json(res)).toMatchObject({ error: "Checkout expired", code: "CHECKOUT_EXPIRED" });
    await expectNothingCreated(late.orderId);
    // CONTRACT §33: an identical repeat of a completed request still replays after expiry.
    const replay = await complete(completeBody(onTime));
    expect(replay.statusCode).toBe(200);
  });
});

describe("complete: idempotency by orderId", () => {
  it("replays the first result for the same transaction and creates nothing new", async () => {
    const paid = await paidCheckout();
    const body = completeBody(paid, { salesAttribution: { salespersonId: "sp_r", commissionRate: 0.1 }, recordInCrm: true, crmProvider: "order_crm_b", customer: CUSTOMER, billingAddress: BILLING });
    const first = await complete(body);
    expect(first.statusCode).toBe(200);
    const again = await complete(body);
    expect(again.statusCode).toBe(200);
    expect(json(again)).toEqual(json(first));
    expect(await ordersOf(paid.orderId)).toHaveLength(1);
    expect(await commissionsOf(paid.orderId)).toHaveLength(1);
    expect(await completionEventsOf(paid.orderId)).toHaveLength(3);
  });

  it("answers 409 IDEMPOTENCY_CONFLICT for another transaction or amount, changing nothing", async () => {
    const paid = await paidCheckout();
    const first = json(await complete(completeBody(paid)));
    // Another real charge of the same amount, made for another order (the paid order itself cannot be charged twice).
    const pay2 = json(await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId: `${paid.orderId}-2`, amount: paid.amount, currency: "USD", ...CARD }));
    for (const body of [completeBody(paid, { transactionId: pay2.transactionId }), completeBody(paid, { amount: paid.amount + 1 })]) {
      const res = await complete(body);
      expect(res.statusCode).toBe(409);
      expect(json(res).code).toBe("IDEMPOTENCY_CONFLICT");
    }
    const [order] = await ordersOf(paid.orderId);
    expect(order!.result).toEqual(first);
    expect(await ordersOf(paid.orderId)).toHaveLength(1);
    expect(await completionEventsOf(paid.orderId)).toHaveLength(3);
  });

  // PostgreSQL only: PGlite has one connection and runs transactions one at a time, so this race cannot fail there.
  it.runIf(testEngine === "postgres")("makes one order, one commission and one set of events from 10 concurrent duplicates", async () => {
    const paid = await paidCheckout();
    const body = completeBody(paid, { salesAttribution: { salespersonId: "sp_race", commissionRate: 0.2 }, lineItems: [{ id: "x", quantity: 1, unitPrice: 5000 }] });
    const results = await Promise.all(Array.from({ length: 10 }, () => complete(body)));
    for (const res of results) expect(res.statusCode, res.body).toBe(200);
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    const found = await ordersOf(paid.orderId);
    expect(found).toHaveLength(1);
    expect(await db().select().from(orderLineItems).where(eq(orderLineItems.orderRef, found[0]!.id))).toHaveLength(1);
    expect(await commissionsOf(paid.orderId)).toHaveLength(1);
    expect(await completionEventsOf(paid.orderId)).toHaveLength(3);
  });
});

describe("complete: several brands with one orderId", () => {
  it("completes the checkout the payment belongs to", async () => {
    const { brandId } = await createBrand(t);
    const orderId = orderClaims().orderId as string;
    await post(t, "/api/checkout/initialize", { token: await signToken(t, orderClaims({ orderId, amount: 5000 })), provider: "vault_gateway_b" });
    const paid = await paidCheckout({ claims: { orderId, amount: 7000, brandId } });
    const res = await complete(completeBody(paid));
    expect(res.statusCode, res.body).toBe(200);
    const rows = await checkoutsOf(orderId);
    expect(rows.find((r) => r.brandId === brandId)!.status).toBe("completed");
    expect(rows.find((r) => r.brandId !== brandId)!.status).toBe("initialized");
    expect((await ordersOf(orderId))[0]!.brandId).toBe(brandId);
  });
});

describe("get-payment-token", () => {
  it("returns the completed order's payment method token", async () => {
    const paid = await paidCheckout();
    await complete(completeBody(paid));
    const res = await post(t, "/api/checkout/get-payment-token", { provider: "vault_gateway_b", transactionId: paid.transactionId });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(json(res)).toEqual({ success: true, paymentMethodToken: paid.paymentMethodToken, provider: "vault_gateway_b" });
  });

  it("answers 404 for an unknown transaction, another provider or another providerOrderId", async () => {
    const paid = await paidCheckout();
    await complete(completeBody(paid));
    const [order] = await ordersOf(paid.orderId);
    expect(order!.providerOrderId).toBeTruthy();
    for (const body of [
      { provider: "vault_gateway_b", transactionId: "unknown" },
      { provider: "vault_gateway_a", transactionId: paid.transactionId },
      { provider: "vault_gateway_b", transactionId: paid.transactionId, providerOrderId: "other" },
    ]) {
      const res = await post(t, "/api/checkout/get-payment-token", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(404);
    }
    const matching = await post(t, "/api/checkout/get-payment-token", { provider: "vault_gateway_b", transactionId: paid.transactionId, providerOrderId: order!.providerOrderId });
    expect(matching.statusCode).toBe(200);
  });

  it("answers 404 for a payment whose checkout was never completed", async () => {
    const paid = await paidCheckout();
    const res = await post(t, "/api/checkout/get-payment-token", { provider: "vault_gateway_b", transactionId: paid.transactionId });
    expect(res.statusCode).toBe(404);
  });
});
