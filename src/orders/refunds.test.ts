// Issue 17, refunds (CONTRACT §38): money back on one charge, through the back office and /api/v1,
// never more than was charged (also under 20 concurrent requests), exactly once against the provider,
// a refusal recorded and answered 402, events and audit, and another brand's order untouched.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../test/support/database.js";
import { adminCall, addUser, registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, errorOf, json, type TestApp } from "../../test/support/app.js";
import { acceptedUpsell, completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { call } from "../../test/support/identity.js";
import { bearer, createApiKey } from "../../test/support/merchant.js";
import { AMOUNT } from "../../test/support/provider-payments.js";
import { abandonReservation, expireReservation } from "../../test/support/idempotency.js";
import { repeatRefund } from "../../test/support/refunds.js";
import { auditLogs, demoProviderRecords, orders, outboxEvents, refunds } from "../db/schema/index.js";
import { PAYMENT_PROVIDERS, type PaymentProviderType } from "../providers/manifest.js";

let t: TestApp;
let shop: Registered;
let rival: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  shop = await registerOwner(t);
  rival = await registerOwner(t);
});
afterAll(() => t.close());

const db = () => t.deps.database.db;

/** A completed checkout of the shop (or `brandId`) paid through `provider`; its order row. */
async function paidOrder(provider: PaymentProviderType = "vault_gateway_b", cardNumber?: string, brandId = shop.brandId) {
  const done = await completeCheckoutViaApi(t, { provider, cardNumber, claims: { brandId } });
  const [row] = await db().select().from(orders).where(and(eq(orders.orderId, done.orderId), eq(orders.kind, "checkout")));
  return { ...row!, paymentMethodToken: done.paymentMethodToken };
}

const refund = (id: string, body: Record<string, unknown>, session = shop.session, headers?: Record<string, string>) =>
  call(t, "POST", `/api/admin/orders/${id}/refunds`, { body, session, headers });
const detail = async (id: string) => json(await adminCall(t, "GET", `/api/admin/orders/${id}`, { session: shop.session }));
const refundsOf = (orderRef: string) => db().select().from(refunds).where(eq(refunds.orderRef, orderRef));
const eventsOf = (type: string, orderId: string) =>
  db()
    .select()
    .from(outboxEvents)
    .where(eq(outboxEvents.type, type))
    .then((rows) => rows.filter((r) => (r.payload as { orderId?: string }).orderId === orderId));

describe("POST /api/admin/orders/:id/refunds", () => {
  it("refunds part, then the rest; the order reads partially refunded, then refunded; events and audit follow", async () => {
    const order = await paidOrder();
    const part = await refund(order.id, { amount: 300, reason: "requested_by_customer", note: "scratched" });
    expect(part.statusCode, part.body).toBe(200);
    expect(part.headers["cache-control"]).toBe("no-store");
    expect(json(part)).toEqual({
      success: true,
      refund: { id: expect.stringMatching(/^rfd_/), orderId: order.orderId, chargeId: order.id, amount: 300, currency: "USD", status: "succeeded", reason: "requested_by_customer", providerRefundId: expect.any(String), metadata: {}, createdAt: t.clock.now() },
    });
    expect(await detail(order.id)).toMatchObject({ status: "partially_refunded", refunded: 300, refunds: [{ amount: 300, status: "succeeded" }] });

    const rest = await refund(order.id, { reason: "other" });
    expect(json(rest).refund).toMatchObject({ amount: AMOUNT - 300, status: "succeeded" });
    expect(await detail(order.id)).toMatchObject({ status: "refunded", refunded: AMOUNT });
    const listed = json(await adminCall(t, "GET", `/api/admin/orders?status=refunded&q=${order.orderId}`, { session: shop.session }));
    expect(listed.orders.map((o: { orderId: string }) => o.orderId)).toEqual([order.orderId]);

    const events = await eventsOf("refund.succeeded", order.orderId);
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({ orderId: order.orderId, transactionId: order.transactionId, provider: "vault_gateway_b", amount: 300, currency: "USD", reason: "requested_by_customer", refundedTotal: 300 }),
      expect.objectContaining({ amount: AMOUNT - 300, reason: "other", refundedTotal: AMOUNT }),
    ]);
    const audit = await db().select().from(auditLogs).where(and(eq(auditLogs.action, "order.refund"), eq(auditLogs.resourceId, order.id)));
    expect(audit).toHaveLength(2);
    // The provider's own ledger holds the two refunds.
    const atProvider = await db().select().from(demoProviderRecords).where(and(eq(demoProviderRecords.kind, "refund"), eq(demoProviderRecords.orderId, order.orderId)));
    expect(atProvider.map((r) => r.amountCents).sort()).toEqual([300, AMOUNT - 300].sort());
  });

  it("never refunds more than was charged: over the rest is 400, a refunded charge 409, and nothing is written", async () => {
    const order = await paidOrder();
    const over = await refund(order.id, { amount: AMOUNT + 1, reason: "other" });
    expect(over.statusCode).toBe(400);
    expect(json(over)).toMatchObject({ code: "VALIDATION_ERROR", details: "amount" });
    expect(json(await refund(order.id, { reason: "duplicate" })).refund.amount).toBe(AMOUNT);
    const again = await refund(order.id, { amount: 1, reason: "duplicate" });
    expect(again.statusCode).toBe(409);
    expect(json(again)).toMatchObject({ error: "Charge already fully refunded", code: "ALREADY_REFUNDED" });
    expect(await refundsOf(order.id)).toHaveLength(1);
  });

  // PostgreSQL only: PGlite has one connection and runs transactions one at a time, so this race cannot fail there.
  it.runIf(testEngine === "postgres")("20 concurrent refunds of 100 each on a charge of 1000: exactly 10 succeed, and the charge is refunded once in full", async () => {
    const order = await paidOrder();
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(order.id, { amount: 100, reason: "requested_by_customer" })));
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s !== 200).every((s) => s === 409)).toBe(true);
    const rows = await refundsOf(order.id);
    expect(rows.filter((r) => r.status === "succeeded").reduce((sum, r) => sum + r.amountCents, 0)).toBe(AMOUNT);
    expect((await detail(order.id)).refunded).toBe(AMOUNT);
  });

  it("an Idempotency-Key repeat answers the first refund and refunds nothing more", async () => {
    const order = await paidOrder();
    const headers = { "idempotency-key": `refund-${order.id}` };
    const first = await refund(order.id, { amount: 200, reason: "other" }, shop.session, headers);
    const second = await refund(order.id, { amount: 200, reason: "other" }, shop.session, headers);
    expect(second.body).toBe(first.body);
    expect(await refundsOf(order.id)).toHaveLength(1);
  });

  it("a refund the provider refuses is recorded failed and answers 402 REFUND_FAILED; nothing is refunded", async () => {
    const order = await paidOrder("vault_gateway_b", "4000000000005126");
    const refused = await refund(order.id, { amount: 500, reason: "fraudulent" });
    expect(refused.statusCode).toBe(402);
    expect(json(refused)).toMatchObject({ error: "Refund failed: refund_declined", code: "REFUND_FAILED", details: "refund_declined" });
    expect(await refundsOf(order.id)).toEqual([expect.objectContaining({ status: "failed", failureReason: "refund_declined", amountCents: 500 })]);
    expect(await detail(order.id)).toMatchObject({ status: "paid", refunded: 0 });
    expect((await eventsOf("refund.failed", order.orderId)).map((e) => e.payload)).toEqual([expect.objectContaining({ failureReason: "refund_declined", amount: 500 })]);
  });

  it("refunds an upsell charge named by `charge`, apart from the order's own payment", async () => {
    const order = await paidOrder("vault_gateway_b");
    await acceptedUpsell(t, order);
    const res = await refund(order.id, { charge: `${order.orderId}-up`, reason: "requested_by_customer" });
    expect(json(res).refund).toMatchObject({ orderId: `${order.orderId}-up`, amount: 1500, status: "succeeded" });
    const shown = await detail(order.id);
    expect(shown).toMatchObject({ status: "paid", refunded: 0, upsells: [{ status: "refunded", refunded: 1500 }] });
    expect((await refund(order.id, { charge: "ord_not_this_orders", reason: "other" })).statusCode).toBe(404);
  });

  it.each(PAYMENT_PROVIDERS)("%s: a demo-mode charge is refunded at the provider", async (provider) => {
    const order = await paidOrder(provider);
    const res = await refund(order.id, { amount: 100, reason: "other" });
    expect(res.statusCode, res.body).toBe(200);
    const [atProvider] = await db().select().from(demoProviderRecords).where(and(eq(demoProviderRecords.kind, "refund"), eq(demoProviderRecords.orderId, order.orderId)));
    expect(atProvider).toMatchObject({ provider, amountCents: 100, status: "succeeded", providerOrderId: order.transactionId });
  });

  it("a demo refund asked again with its id (the reconciler's repeat) answers the first outcome and refunds nothing more, also when both run at once", async () => {
    const order = await paidOrder("cart_gateway");
    const first = json(await refund(order.id, { amount: 100, reason: "other" })).refund;
    const same = { status: "succeeded", providerRefundId: first.providerRefundId };
    expect(await repeatRefund(t, first.id)).toEqual(same);
    // The provider never got the first call (it died on the way): two repeats at once refund it once.
    await db().delete(demoProviderRecords).where(eq(demoProviderRecords.id, first.providerRefundId));
    expect(await Promise.all([repeatRefund(t, first.id), repeatRefund(t, first.id)])).toEqual([same, same]);
    const refused = await paidOrder("cart_gateway", "4000000000005126");
    const failed = await refund(refused.id, { amount: 100, reason: "other" });
    const [row] = await refundsOf(refused.id);
    expect(await repeatRefund(t, row!.id)).toEqual({ status: "failed", reason: json(failed).details });
    const atProvider = await db().select().from(demoProviderRecords).where(eq(demoProviderRecords.kind, "refund"));
    expect(atProvider.filter((r) => r.orderId === order.orderId || r.orderId === refused.orderId)).toHaveLength(2);
  });

  it("another brand's order is 404, a member is 403, no session 401; nothing is written", async () => {
    const order = await paidOrder();
    const foreign = await refund(order.id, { reason: "other" }, rival.session);
    expect(foreign.statusCode).toBe(404);
    expect(json(foreign)).toMatchObject({ error: "Order not found", code: "NOT_FOUND" });
    const member = await addUser(t, shop.session, "member", [shop.brandId]);
    expect((await refund(order.id, { reason: "other" }, member.session)).statusCode).toBe(403);
    expect((await call(t, "POST", `/api/admin/orders/${order.id}/refunds`, { body: { reason: "other" } })).statusCode).toBe(401);
    expect((await refund(order.id, { reason: "because" })).statusCode).toBe(400);
    expect(await refundsOf(order.id)).toEqual([]);
  });
});

describe("POST /api/v1/orders/:orderId/refunds", () => {
  it("refunds with an orders:refund key of the brand; another scope is 403, another brand's key 404", async () => {
    const order = await paidOrder();
    const key = await createApiKey(t, shop.session, { scopes: ["orders:refund"] });
    const res = await t.app.inject({ method: "POST", url: `/api/v1/orders/${order.orderId}/refunds`, payload: { amount: 250, reason: "requested_by_customer" }, headers: bearer(key.secret) });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).refund).toMatchObject({ amount: 250, status: "succeeded", orderId: order.orderId });
    expect((await refundsOf(order.id))[0]!.requestedBy).toBe(`api:${key.id}`);

    const reader = await createApiKey(t, shop.session, { scopes: ["orders:read"] });
    expect((await t.app.inject({ method: "POST", url: `/api/v1/orders/${order.orderId}/refunds`, payload: { reason: "other" }, headers: bearer(reader.secret) })).statusCode).toBe(403);
    const rivalKey = await createApiKey(t, rival.session, { scopes: ["orders:refund"] });
    expect((await t.app.inject({ method: "POST", url: `/api/v1/orders/${order.orderId}/refunds`, payload: { reason: "other" }, headers: bearer(rivalKey.secret) })).statusCode).toBe(404);
    expect(await refundsOf(order.id)).toHaveLength(1);
  });
});

describe("an Idempotency-Key names one refund, for good (CONTRACT §40, issue 31)", () => {
  const v1Refund = (orderId: string, body: Record<string, unknown>, secret: string, key: string) =>
    t.app.inject({ method: "POST", url: `/api/v1/orders/${orderId}/refunds`, payload: body, headers: { ...bearer(secret), "idempotency-key": key } });
  const atProvider = (orderId: string) =>
    db()
      .select()
      .from(demoProviderRecords)
      .where(and(eq(demoProviderRecords.kind, "refund"), eq(demoProviderRecords.orderId, orderId)));

  it("a retry after the dead request's reservation was taken over answers the refund that succeeded, also a day later, and refunds nothing more", async () => {
    const order = await paidOrder();
    const key = await createApiKey(t, shop.session, { scopes: ["orders:refund"] });
    const body = { amount: 600, reason: "requested_by_customer" };
    const first = await v1Refund(order.orderId, body, key.secret, "retry-after-takeover");
    expect(first.statusCode, first.body).toBe(200);

    // The request died before its answer: its reservation is taken over a minute later, and the verb runs again.
    await abandonReservation(t, "retry-after-takeover");
    const retry = await v1Refund(order.orderId, body, key.secret, "retry-after-takeover");
    expect(retry.statusCode, retry.body).toBe(200); // not "400 amount is more than the 400 left"
    expect(json(retry)).toEqual(json(first));
    expect(retry.headers["idempotent-replayed"]).toBeUndefined(); // answered from the refund, not from a stored answer

    // Past the stored answer's 24 hours the key still names that refund.
    await expireReservation(t, "retry-after-takeover");
    const dayLater = await v1Refund(order.orderId, body, key.secret, "retry-after-takeover");
    expect(dayLater.statusCode, dayLater.body).toBe(200);
    expect(json(dayLater).refund).toEqual(json(first).refund);

    expect(await refundsOf(order.id)).toHaveLength(1);
    expect(await atProvider(order.orderId)).toHaveLength(1);
    expect(await detail(order.id)).toMatchObject({ refunded: 600 });
  });

  it("the same key with other parameters after the takeover is 422 (another amount, another order), and nothing more is refunded", async () => {
    const order = await paidOrder();
    const other = await paidOrder();
    const key = await createApiKey(t, shop.session, { scopes: ["orders:refund"] });
    expect((await v1Refund(order.orderId, { amount: 300, reason: "other" }, key.secret, "other-params")).statusCode).toBe(200);
    await abandonReservation(t, "other-params");
    const reused = await v1Refund(order.orderId, { amount: 400, reason: "other" }, key.secret, "other-params");
    expect(reused.statusCode, reused.body).toBe(422);
    expect(json(reused)).toMatchObject({ error: "Idempotency key reused with different parameters", code: "IDEMPOTENCY_KEY_REUSED" });
    await abandonReservation(t, "other-params");
    expect((await v1Refund(other.orderId, { amount: 300, reason: "other" }, key.secret, "other-params")).statusCode).toBe(422);
    // The back office's route is another request too: one key, one refund of the brand.
    const viaSession = await refund(order.id, { amount: 300, reason: "other" }, shop.session, { "idempotency-key": "other-params" });
    expect(viaSession.statusCode, viaSession.body).toBe(422);
    expect(await refundsOf(order.id)).toHaveLength(1);
    expect(await refundsOf(other.id)).toEqual([]);
  });

  it("a refund the provider refused answers its 402 again after the takeover, and is not tried again", async () => {
    const order = await paidOrder("vault_gateway_b", "4000000000005126");
    const key = await createApiKey(t, shop.session, { scopes: ["orders:refund"] });
    const first = await v1Refund(order.orderId, { amount: 500, reason: "fraudulent" }, key.secret, "refused-once");
    expect(first.statusCode).toBe(402);
    await abandonReservation(t, "refused-once");
    const retry = await v1Refund(order.orderId, { amount: 500, reason: "fraudulent" }, key.secret, "refused-once");
    expect(retry.statusCode).toBe(402);
    expect(errorOf(retry)).toEqual(errorOf(first));
    expect(await refundsOf(order.id)).toHaveLength(1);
    expect(await atProvider(order.orderId)).toHaveLength(1);
  });

  it("two keys of the brand sending one Idempotency-Key at once make one refund, which both answers name", async () => {
    const order = await paidOrder();
    const [a, b] = await Promise.all([createApiKey(t, shop.session, { scopes: ["orders:refund"] }), createApiKey(t, shop.session, { scopes: ["orders:refund"] })]);
    const body = { amount: 100, reason: "duplicate" };
    // Two callers: two HTTP reservations, so only the refund's own binding keeps them to one refund.
    const answers = await Promise.all([a, b, a, b].map((k) => v1Refund(order.orderId, body, k.secret, "one-key-two-callers")));
    const refunded = answers.filter((res) => res.statusCode === 200 || res.statusCode === 202);
    expect(refunded.length, answers.map((res) => `${res.statusCode} ${res.body}`).join("\n")).toBeGreaterThanOrEqual(2);
    expect(answers.every((res) => [200, 202, 409].includes(res.statusCode))).toBe(true); // 409: the same caller's repeat while the first runs
    expect(new Set(refunded.map((res) => json(res).refund.id)).size).toBe(1);
    expect(await refundsOf(order.id)).toHaveLength(1);
    expect(await atProvider(order.orderId)).toHaveLength(1);
  });

  it("brand B sending brand A's key string gets its own refund, never A's", async () => {
    const order = await paidOrder();
    const shopKey = await createApiKey(t, shop.session, { scopes: ["orders:refund"] });
    const theirs = await v1Refund(order.orderId, { amount: 300, reason: "other" }, shopKey.secret, "shared-key-string");
    expect(theirs.statusCode).toBe(200);

    const rivalKey = await createApiKey(t, rival.session, { scopes: ["orders:refund"] });
    // The very same request with the rival's key: A's order is not the rival's, whatever the key says.
    const probe = await v1Refund(order.orderId, { amount: 300, reason: "other" }, rivalKey.secret, "shared-key-string");
    expect(probe.statusCode, probe.body).toBe(404);
    expect(probe.body).not.toContain(json(theirs).refund.id);
    // Its own order with the key string (another of its keys, so its own first answer is not replayed): its own refund.
    const own = await paidOrder("vault_gateway_b", undefined, rival.brandId);
    const rivalServer = await createApiKey(t, rival.session, { scopes: ["orders:refund"] });
    const mine = await v1Refund(own.orderId, { amount: 300, reason: "other" }, rivalServer.secret, "shared-key-string");
    expect(mine.statusCode, mine.body).toBe(200);
    expect(json(mine).refund).toMatchObject({ orderId: own.orderId, amount: 300, status: "succeeded" });
    expect(json(mine).refund.id).not.toBe(json(theirs).refund.id);
    expect(await refundsOf(order.id)).toEqual([expect.objectContaining({ id: json(theirs).refund.id, brandId: shop.brandId })]);
  });
});
