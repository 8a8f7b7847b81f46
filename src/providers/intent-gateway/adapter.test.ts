// The real intent gateway adapter against a fake PaymentIntents-style gateway at the network
// boundary: settings take it out of demo mode at once; initialize → confirm (after the gateway's
// client SDK paid) → complete → one-click upsell; declines are 402; a failing gateway is 502.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { registerOwner } from "../../../test/support/admin.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { call } from "../../../test/support/identity.js";
import { card, post } from "../../../test/support/provider-payments.js";
import { checkouts, orders, outboxEvents, paymentDeclines, refunds, upsellSessions } from "../../db/schema/index.js";
import { RECONCILE_GIVE_UP_MS } from "../../orders/refund-reconciler.js";
import { RECONCILE_AFTER_MS } from "../../orders/refunds.js";
import { SETTINGS_CACHE_MS } from "../registry.js";
import { startFakeIntentGateway, type FakeIntentGateway } from "./fake-server.js";
import { bearer, createApiKey } from "../../../test/support/merchant.js";
import { repeatRefund } from "../../../test/support/refunds.js";

let t: TestApp;
let apiKey: string;
const merchantPost = (url: string, payload: unknown) => post(t, url, payload, { headers: bearer(apiKey) });
let fake: FakeIntentGateway;
let session: string;
let brandId: string;
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeIntentGateway()]);
  ({ session, brandId } = await registerOwner(t));
  // CONTRACT §35: the money paths of a real-money order need the brand's API key.
  apiKey = (await createApiKey(t, session, { mode: "live" })).secret;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const AMOUNT = 2500;
const configure = () =>
  call(t, "POST", "/api/admin/settings", { session, body: { provider: "intent_gateway", settings: { publishableKey: "pk_test_fake", secretKey: fake.secretKey, baseUrl: fake.baseUrl } } });
async function initialize(orderId?: string) {
  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId, ...(orderId ? { orderId } : {}) });
  const res = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "intent_gateway", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
  return { res, orderId: claims.orderId as string };
}
const complete = (orderId: string, transactionId: string) =>
  post(t, "/api/checkout/complete", { orderId, transactionId, providerOrderId: transactionId, provider: "intent_gateway", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
const ordersOf = (orderId: string) => t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId));

/** A checkout paid at the gateway (its SDK) with `paymentMethod` and completed; the upsell session on it. */
async function paidCheckout(paymentMethod = "pm_card_visa") {
  const { res, orderId } = await initialize();
  expect(res.statusCode, res.body).toBe(200);
  const intentId = json(res).providerOrderId as string;
  fake.pay(intentId, paymentMethod);
  const confirmed = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  const done = await complete(orderId, intentId);
  expect(done.statusCode, done.body).toBe(200);
  const created = await merchantPost("/api/upsell/create-session", {
    orderId: `${orderId}-up`,
    originalOrderId: orderId,
    customerEmail: "ada@example.com",
    paymentMethodToken: json(done).paymentMethodToken,
    provider: "intent_gateway",
    offers: [{ id: "a", name: "Offer a", price: 900 }],
  });
  expect(created.statusCode, created.body).toBe(200);
  return { orderId, intentId, completed: json(done), sessionId: json(created).sessionId as string };
}
const accept = (sessionId: string) => post(t, "/api/upsell/accept", { sessionId, offerId: "a" });

describe("intent_gateway with settings", () => {
  it("is demo until the settings are stored, then creates intents at the gateway at once", async () => {
    const before = await initialize();
    expect(json(before.res).clientSecret).toMatch(/^pi_demo/);
    // initialize's `demo` (not in SPEC) tells the checkout page whether to show the test cards.
    expect(json(before.res).demo).toBe(true);
    expect((await configure()).statusCode).toBe(200);
    const after = await initialize();
    expect(after.res.statusCode, after.res.body).toBe(200);
    expect(json(after.res).demo).toBe(false);
    const intentId = json(after.res).providerOrderId as string;
    expect(intentId).toMatch(/^pi_fake/);
    expect(json(after.res).clientSecret).toBe(fake.intents.get(intentId)!.client_secret);
    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${fake.secretKey}`);
    expect(sent.form).toMatchObject({ amount: "2500", currency: "usd", setup_future_usage: "off_session", "metadata[orderId]": after.orderId });
  });

  it("reuses the intent when the same checkout initializes again (idempotency key)", async () => {
    const first = await initialize();
    const again = await initialize(first.orderId);
    expect(json(again.res).providerOrderId).toBe(json(first.res).providerOrderId);
  });

  it("runs initialize → confirm → complete → one-click upsell against the gateway", async () => {
    const { orderId, intentId, completed, sessionId } = await paidCheckout();
    const intent = fake.intents.get(intentId)!;
    expect(completed.paymentMethodToken).toBe(`pm_card_visa|${intent.customer}`);
    expect(await ordersOf(orderId)).toHaveLength(1);

    // The cached settings expire: accept reads them again inside its transaction (no second connection).
    t.clock.advance(SETTINGS_CACHE_MS + 1);
    const accepted = await accept(sessionId);
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(json(accepted)).toMatchObject({ success: true, amountCharged: 900 });
    const charge = fake.requests.at(-1)!;
    expect(charge.form).toMatchObject({ amount: "900", customer: intent.customer, payment_method: "pm_card_visa", off_session: "true", confirm: "true" });
    expect(charge.headers["idempotency-key"]).toMatch(/^upsell:/);
    expect(json(accepted).transactionId).toBe(fake.intents.get(json(accepted).transactionId)!.id);
    expect(t.logs.join("\n")).not.toContain(fake.secretKey);

    // Issue 21: money through the real adapter is livemode in every event, and counted so in /metrics.
    const events = await t.deps.database.db.select().from(outboxEvents);
    const mine = events.filter((e) => JSON.stringify(e.payload).includes(orderId));
    expect(mine.map((e) => e.type).sort()).toEqual(expect.arrayContaining(["checkout.created", "order.confirmed", "payment.succeeded", "upsell.accepted"]));
    for (const event of mine) expect(event.payload, event.type).toMatchObject({ livemode: true });
    // Issue 33: every object of the chain carries livemode as a column too (lists and the events API filter on it).
    for (const event of mine) expect(event.livemode, event.type).toBe(true);
    const db = t.deps.database.db;
    expect((await db.select().from(checkouts).where(eq(checkouts.orderId, orderId))).map((c) => c.livemode)).toEqual([true]);
    expect((await ordersOf(orderId)).every((o) => o.livemode)).toBe(true);
    expect((await db.select().from(upsellSessions).where(eq(upsellSessions.id, sessionId))).map((s) => s.livemode)).toEqual([true]);
    await t.app.webhookWorker.deliverDue();
    const metrics = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(metrics).toMatch(/checkout_orders_total\{provider="intent_gateway",currency="[A-Z]{3}",kind="upsell",livemode="true"\} [1-9]/);
    expect(metrics).toMatch(/checkout_revenue_minor_units_total\{provider="intent_gateway",currency="[A-Z]{3}",livemode="true"\} [1-9]/);
  });

  it("answers a declined off-session charge with 402 and records the decline", async () => {
    const { orderId, sessionId } = await paidCheckout("pm_card_declineSaved");
    const res = await accept(sessionId);
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ code: "PAYMENT_FAILED", details: "insufficient_funds" });
    expect(await t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, `${orderId}-up`))).toHaveLength(1);
  });

  it("answers a declined intent at confirm with 402", async () => {
    const { res } = await initialize();
    const intentId = json(res).providerOrderId as string;
    fake.pay(intentId, "pm_card_chargeDeclined");
    const confirmed = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId });
    expect(confirmed.statusCode).toBe(402);
    expect(json(confirmed)).toMatchObject({ code: "PAYMENT_FAILED", details: "generic_decline" });
  });

  it("3-D Secure: an intent waiting on the bank answers its next_action URL; after the bank's approval it reads succeeded", async () => {
    const { res, orderId } = await initialize();
    const intentId = json(res).providerOrderId as string;
    fake.pay(intentId, "pm_card_threeDSecure");
    const waiting = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId });
    expect(waiting.statusCode, waiting.body).toBe(200);
    expect(json(waiting)).toMatchObject({ status: "requires_action", nextAction: { type: "redirect_to_url", url: `${fake.baseUrl}/3ds/${intentId}` } });
    expect((await complete(orderId, intentId)).statusCode).toBe(400);
    fake.pay(intentId, "pm_card_visa");
    const back = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId });
    expect(json(back)).toMatchObject({ status: "succeeded", paymentIntentId: intentId });
    expect(json(back).nextAction).toBeUndefined();
    expect((await complete(orderId, intentId)).statusCode).toBe(200);
  });

  it("refuses card fields: cards go to the gateway's SDK, never to us", async () => {
    const { res } = await initialize();
    const confirmed = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: json(res).providerOrderId, ...card() });
    expect(confirmed.statusCode).toBe(400);
    expect(json(confirmed).details).toBe("cardNumber");
  });

  it("refuses a completion before the intent is paid", async () => {
    const { res, orderId } = await initialize();
    const done = await complete(orderId, json(res).providerOrderId);
    expect(done.statusCode).toBe(400);
    expect(json(done)).toMatchObject({ code: "PAYMENT_NOT_VERIFIED" });
    expect(await ordersOf(orderId)).toHaveLength(0);
  });

  it.each(["500", "garbage"] as const)("answers 502 PROVIDER_ERROR when the gateway answers %s, writing nothing", async (mode) => {
    fake.failNext = mode;
    const init = await initialize();
    expect(init.res.statusCode).toBe(502);
    expect(json(init.res)).toMatchObject({ code: "PROVIDER_ERROR" });
    expect(await t.deps.database.db.select().from(checkouts).where(eq(checkouts.orderId, init.orderId))).toHaveLength(0);

    const { res, orderId } = await initialize();
    const intentId = json(res).providerOrderId as string;
    fake.pay(intentId, "pm_card_visa");
    fake.failNext = mode;
    const done = await complete(orderId, intentId);
    expect(done.statusCode).toBe(502);
    expect(await ordersOf(orderId)).toHaveLength(0);

    const paid = await paidCheckout();
    fake.failNext = mode;
    const accepted = await accept(paid.sessionId);
    expect(accepted.statusCode).toBe(502);
    expect(json(accepted)).toMatchObject({ code: "PROVIDER_ERROR" });
    const [upsell] = await t.deps.database.db.select().from(upsellSessions).where(eq(upsellSessions.id, paid.sessionId));
    expect(upsell).toBeDefined();
    expect(await ordersOf(`${paid.orderId}-up`)).toHaveLength(0);
  });
});

describe("intent_gateway refunds", () => {
  const refundVia = (orderRef: string, body: Record<string, unknown>) => call(t, "POST", `/api/admin/orders/${orderRef}/refunds`, { session, body });
  const checkoutOrderOf = async (orderId: string) => (await ordersOf(orderId)).find((o) => o.kind === "checkout")!;
  const refundRow = async (id: string) => (await t.deps.database.db.select().from(refunds).where(eq(refunds.id, id)))[0]!;

  it("refunds part of a paid intent at the gateway with the refund's id as Idempotency-Key, then the rest", async () => {
    const paid = await paidCheckout();
    const order = await checkoutOrderOf(paid.orderId);
    const res = await refundVia(order.id, { amount: 1000, reason: "requested_by_customer" });
    expect(res.statusCode, res.body).toBe(200);
    const refund = json(res).refund;
    expect(refund).toMatchObject({ amount: 1000, status: "succeeded", providerRefundId: expect.stringMatching(/^re_fake/) });
    const sent = fake.requests.filter((r) => r.path === "/v1/refunds").at(-1)!;
    expect(sent.form).toMatchObject({ payment_intent: paid.intentId, amount: "1000", reason: "requested_by_customer", "metadata[orderId]": paid.orderId });
    expect(sent.headers["idempotency-key"]).toBe(refund.id);
    expect(json(await refundVia(order.id, { reason: "other" })).refund).toMatchObject({ amount: AMOUNT - 1000, status: "succeeded" });
    expect(fake.intents.get(paid.intentId)!.amount_refunded).toBe(AMOUNT);
  });

  it("a refund the gateway fails is 402 REFUND_FAILED with its reason, and nothing is refunded", async () => {
    const paid = await paidCheckout("pm_card_refundFail");
    const order = await checkoutOrderOf(paid.orderId);
    const res = await refundVia(order.id, { amount: 500, reason: "fraudulent" });
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ error: "Refund failed: declined", code: "REFUND_FAILED", details: "declined" });
    expect((await checkoutOrderOf(paid.orderId)).refundedCents).toBe(0);
  });

  it("a refund asked again with its id (the reconciler's repeat) answers the same refund, and the gateway refunds once", async () => {
    const paid = await paidCheckout();
    const order = await checkoutOrderOf(paid.orderId);
    const first = json(await refundVia(order.id, { amount: 700, reason: "other" })).refund;
    expect(await repeatRefund(t, first.id)).toEqual({ status: "succeeded", providerRefundId: first.providerRefundId });
    const sent = fake.requests.filter((r) => r.path === "/v1/refunds" && r.headers["idempotency-key"] === first.id);
    expect(sent).toHaveLength(2);
    expect(fake.intents.get(paid.intentId)!.amount_refunded).toBe(700);
  });

  it("a failing gateway is 502: the refund stays pending and keeps holding its amount", async () => {
    const paid = await paidCheckout();
    const order = await checkoutOrderOf(paid.orderId);
    fake.failNext = "500";
    const errorsBefore = /checkout_provider_errors_total\{provider="intent_gateway"\} (\d+)/.exec((await t.app.inject({ method: "GET", url: "/metrics" })).body)?.[1] ?? "0";
    const res = await refundVia(order.id, { amount: 2000, reason: "other" });
    expect(res.statusCode).toBe(502);
    // Issue 21: counted per provider for the CheckoutProviderErrors alert.
    const errorsAfter = /checkout_provider_errors_total\{provider="intent_gateway"\} (\d+)/.exec((await t.app.inject({ method: "GET", url: "/metrics" })).body)?.[1];
    expect(Number(errorsAfter)).toBe(Number(errorsBefore) + 1);
    expect((await checkoutOrderOf(paid.orderId)).refundedCents).toBe(0);
    const more = await refundVia(order.id, { amount: 1000, reason: "other" });
    expect(more.statusCode).toBe(400);
    expect(json(more)).toMatchObject({ code: "VALIDATION_ERROR", details: "amount" });
  });

  it("the reconciler settles a refund left pending: the same Idempotency-Key again, after the grace and not before", async () => {
    // Refunds the tests above left pending are settled first, so this pass sees this test's alone.
    t.clock.advance(RECONCILE_AFTER_MS + 1);
    await t.app.jobs.trigger("refund-reconciler");
    const paid = await paidCheckout();
    const order = await checkoutOrderOf(paid.orderId);
    fake.failNext = "garbage"; // an unreadable answer: we cannot know whether the gateway refunded
    expect((await refundVia(order.id, { amount: 700, reason: "duplicate" })).statusCode).toBe(502);
    const [pending] = await t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, order.id));
    expect(pending).toMatchObject({ status: "pending" });

    await t.app.jobs.trigger("refund-reconciler");
    expect((await refundRow(pending!.id)).status).toBe("pending"); // within the grace the request may still be answering

    fake.failNext = "500";
    t.clock.advance(RECONCILE_AFTER_MS + 1);
    await t.app.jobs.trigger("refund-reconciler");
    expect(await refundRow(pending!.id)).toMatchObject({ status: "pending", attempts: 1 }); // still failing: looked at again later

    t.clock.advance(60_001);
    await t.app.jobs.trigger("refund-reconciler");
    expect(await refundRow(pending!.id)).toMatchObject({ status: "succeeded", attempts: 2, providerRefundId: expect.stringMatching(/^re_fake/) });
    const sent = fake.requests.filter((r) => r.path === "/v1/refunds" && r.headers["idempotency-key"] === pending!.id);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(fake.intents.get(paid.intentId)!.amount_refunded).toBe(700);
    expect((await checkoutOrderOf(paid.orderId)).refundedCents).toBe(700);
    const detail = json(await call(t, "GET", `/api/admin/orders/${order.id}`, { session }));
    expect(detail.refunds).toEqual([expect.objectContaining({ id: pending!.id, status: "succeeded", amount: 700 })]);
    const [event] = await t.deps.database.db.select().from(outboxEvents).where(eq(outboxEvents.type, "refund.succeeded"));
    expect(event).toBeDefined();
  });

  it("a retry of a refund left pending by a 502 answers it 202 pending (never a second refund), then its success once the reconciler settled it", async () => {
    t.clock.advance(RECONCILE_AFTER_MS + 1);
    await t.app.jobs.trigger("refund-reconciler"); // the pending refunds of the tests above out of the way
    const paid = await paidCheckout();
    const order = await checkoutOrderOf(paid.orderId);
    const again = () => call(t, "POST", `/api/admin/orders/${order.id}/refunds`, { session, body: { amount: 700, reason: "duplicate" }, headers: { "idempotency-key": `pending-${order.id}` } });
    fake.failNext = "garbage";
    expect((await again()).statusCode).toBe(502); // a 5xx is not kept: the client retries
    const [pending] = await t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, order.id));
    const asked = () => fake.requests.filter((r) => r.path === "/v1/refunds" && r.headers["idempotency-key"] === pending!.id).length;

    const retry = await again();
    expect(retry.statusCode, retry.body).toBe(202);
    expect(json(retry)).toEqual({ success: true, refund: expect.objectContaining({ id: pending!.id, amount: 700, status: "pending", providerRefundId: null }) });
    expect(fake.requests.filter((r) => r.path === "/v1/refunds" && r.form.payment_intent === paid.intentId)).toHaveLength(1); // the retry asked the gateway nothing
    expect(await again()).toMatchObject({ statusCode: 202 }); // a pending answer is not kept either

    t.clock.advance(RECONCILE_AFTER_MS + 1);
    await t.app.jobs.trigger("refund-reconciler");
    expect(asked()).toBe(2);
    const settled = await again();
    expect(settled.statusCode, settled.body).toBe(200);
    expect(json(settled).refund).toMatchObject({ id: pending!.id, status: "succeeded", providerRefundId: expect.stringMatching(/^re_fake/) });
    expect(await t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, order.id))).toHaveLength(1);
    expect(fake.intents.get(paid.intentId)!.amount_refunded).toBe(700);
    expect((await checkoutOrderOf(paid.orderId)).refundedCents).toBe(700);
  });

  it("the reconciler leaves a refund pending past 23 hours alone: the gateway's key may be gone, a repeat could refund twice", async () => {
    const paid = await paidCheckout();
    const order = await checkoutOrderOf(paid.orderId);
    fake.failNext = "500";
    expect((await refundVia(order.id, { amount: 300, reason: "other" })).statusCode).toBe(502);
    const [pending] = await t.deps.database.db.select().from(refunds).where(eq(refunds.orderRef, order.id));
    const asked = () => fake.requests.filter((r) => r.path === "/v1/refunds" && r.headers["idempotency-key"] === pending!.id).length;
    expect(asked()).toBe(1);
    t.clock.advance(RECONCILE_GIVE_UP_MS + 1);
    await t.app.jobs.trigger("refund-reconciler");
    expect(asked()).toBe(1);
    expect(await refundRow(pending!.id)).toMatchObject({ status: "pending" });
    expect((await checkoutOrderOf(paid.orderId)).refundedCents).toBe(0);
  });
});
