// Issue 33 item 3: a checkout's metadata was accepted and then found nowhere, and events named the
// checkout `chk_…` while the API answered `mco_…`. Metadata is validated, kept on the order and in
// every event of the chain; a checkout has one id, which its events carry and GET finds.
import { asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkouts, orders, outboxEvents, refunds } from "../db/schema/index.js";
import { testEngine } from "../../test/support/database.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { adminCall, registerOwner, type Registered } from "../../test/support/admin.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";
import { completionBody } from "../../test/support/completed-checkout.js";
import { createApiKey, withKey } from "../../test/support/merchant.js";
import { AMOUNT, PAY_BY_PROVIDER } from "../../test/support/provider-payments.js";

let t: TestApp;
let shop: Registered;
let key: string;
let rivalKey: string;

beforeAll(async () => {
  t = await buildTestApp();
  shop = await registerOwner(t, "Shop");
  const rival = await registerOwner(t, "Rival");
  key = (await createApiKey(t, shop.session)).secret;
  rivalKey = (await createApiKey(t, rival.session)).secret;
});

afterAll(async () => {
  await t.close();
});

let seq = 0;
const checkoutBody = (overrides: Record<string, unknown> = {}) => ({ orderId: `meta-${++seq}-${t.clock.now()}`, amount: AMOUNT, currency: "USD", productName: "Plan", ...overrides });
const createCheckout = (body: unknown, secret = key) => withKey(t, "POST", "/api/v1/checkouts", secret, body);
const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]));
const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "v"]));

async function eventsOfCheckout(checkoutId: string) {
  const rows = await t.deps.database.db.select().from(outboxEvents).where(eq(outboxEvents.checkoutId, checkoutId)).orderBy(asc(outboxEvents.createdAt));
  return rows.map((row) => ({ type: row.type, ...(row.payload as Record<string, unknown>) }));
}

describe("metadata limits", () => {
  it("refuses 51 keys, a key over 40 characters and a value over 500 with 400 naming the field; takes 50 keys of 40 and values of 500", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [tooMany, "metadata"],
      [{ ["k".repeat(41)]: "v" }, "metadata"],
      [{ note: "x".repeat(501) }, "metadata.note"],
      [{ count: 3 }, "metadata.count"],
    ];
    for (const [metadata, field] of cases) {
      const res = await createCheckout(checkoutBody({ metadata }));
      expect(res.statusCode, JSON.stringify(metadata).slice(0, 80)).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: field });
    }
    const longKey = await createCheckout(checkoutBody({ metadata: { ["k".repeat(41)]: "v" } }));
    expect(json(longKey).error).toContain(`metadata key "${"k".repeat(41)}"`);

    const res = await createCheckout(checkoutBody({ metadata: { ...fifty, k0: "x".repeat(500) } }));
    expect(res.statusCode, res.body).toBe(201);
    const at40 = await createCheckout(checkoutBody({ metadata: { ["k".repeat(40)]: "v" } }));
    expect(at40.statusCode, at40.body).toBe(201);
  });

  it("a signed token carrying bad metadata is an invalid token at initialize (401), as any bad claim", async () => {
    for (const metadata of [tooMany, { note: "x".repeat(501) }, { ["k".repeat(41)]: "v" }]) {
      const token = await signToken(t, orderClaims({ brandId: shop.brandId, metadata }));
      const res = await post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
      expect(res.statusCode).toBe(401);
      expect(json(res)).toMatchObject({ code: "INVALID_TOKEN" });
    }
  });

  it("applies the same limits to upsell sessions and refunds", async () => {
    const paid = await paidViaApi({ campaign: "x" });
    const session = await withKey(t, "POST", "/api/v1/upsell/sessions", key, {
      orderId: `${paid.orderId}-up`,
      originalOrderId: paid.orderId,
      customerEmail: "ada@example.com",
      provider: "vault_gateway_b",
      paymentMethodToken: paid.paymentMethodToken,
      offers: [{ id: "o1", name: "Extra", price: 500 }],
      metadata: { step: "y".repeat(501) },
    });
    expect(session.statusCode).toBe(400);
    expect(json(session)).toMatchObject({ code: "VALIDATION_ERROR", details: "metadata.step" });
    const refund = await withKey(t, "POST", `/api/v1/orders/${paid.orderId}/refunds`, key, { reason: "other", metadata: tooMany });
    expect(refund.statusCode).toBe(400);
    expect(json(refund)).toMatchObject({ code: "VALIDATION_ERROR", details: "metadata" });
    expect(await t.deps.database.db.select().from(refunds).where(eq(refunds.orderId, paid.orderId))).toHaveLength(0);
  });
});

/** An API checkout with `metadata`, opened, declined once, paid and completed; returns its id as the API answered it. */
async function paidViaApi(metadata: Record<string, string>) {
  const body = checkoutBody({ metadata });
  const created = await createCheckout(body);
  expect(created.statusCode, created.body).toBe(201);
  const { id, token } = json(created);
  expect((await post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" })).statusCode).toBe(200);
  const declined = await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId: body.orderId, amount: AMOUNT, cardNumber: "4000000000000002", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" });
  expect(declined.statusCode).toBe(402);
  const paid = await PAY_BY_PROVIDER.vault_gateway_b(t, body.orderId);
  const done = await post(t, "/api/checkout/complete", completionBody({ orderId: body.orderId, provider: "vault_gateway_b", transactionId: paid.transactionId }));
  expect(done.statusCode, done.body).toBe(200);
  return { id: id as string, orderId: body.orderId, paymentMethodToken: json(done).paymentMethodToken as string };
}

describe("metadata through the chain, one id", () => {
  it("is on the order and in every event of the checkout, its order, its upsells and its refunds; the events carry the id the API answered", async () => {
    const checkoutMetadata = { campaign: "spring", cartId: "cart-42" };
    const paid = await paidViaApi(checkoutMetadata);
    expect(paid.id).toMatch(/^chk_/);

    const sessionMetadata = { step: "after-checkout" };
    const session = await withKey(t, "POST", "/api/v1/upsell/sessions", key, {
      orderId: `${paid.orderId}-up`,
      originalOrderId: paid.orderId,
      customerEmail: "ada@example.com",
      provider: "vault_gateway_b",
      paymentMethodToken: paid.paymentMethodToken,
      offers: [{ id: "o1", name: "Extra", price: 500 }, { id: "o2", name: "More", price: 700 }],
      metadata: sessionMetadata,
    });
    expect(session.statusCode, session.body).toBe(200);
    const sessionId = json(session).sessionId;
    expect((await post(t, "/api/upsell/accept", { sessionId, offerId: "o1" })).statusCode).toBe(200);
    expect((await post(t, "/api/upsell/decline", { sessionId, offerId: "o2" })).statusCode).toBe(200);

    const refundMetadata = { ticket: "T-1" };
    const refund = await withKey(t, "POST", `/api/v1/orders/${paid.orderId}/refunds`, key, { amount: 100, reason: "requested_by_customer", metadata: refundMetadata });
    expect(refund.statusCode, refund.body).toBe(200);
    expect(json(refund).refund).toMatchObject({ amount: 100, status: "succeeded", metadata: refundMetadata });
    // A refund of the upsell's charge, without metadata of its own.
    const upsellRefund = await withKey(t, "POST", `/api/v1/orders/${paid.orderId}/refunds`, key, { reason: "other", charge: `${paid.orderId}-up` });
    expect(upsellRefund.statusCode, upsellRefund.body).toBe(200);
    expect(json(upsellRefund).refund).toMatchObject({ orderId: `${paid.orderId}-up`, metadata: {} });
    const [stored] = await t.deps.database.db.select().from(refunds).where(eq(refunds.id, json(refund).refund.id));
    expect(stored!.metadata).toEqual(refundMetadata);

    const events = await eventsOfCheckout(paid.id);
    const own = { checkoutMetadata };
    // Events written at one instant have no order among them: compared as a set.
    expect(events).toHaveLength(9);
    expect(events).toEqual(expect.arrayContaining([
      expect.objectContaining({ type: "checkout.created", checkoutId: paid.id, metadata: checkoutMetadata, ...own }),
      expect.objectContaining({ type: "payment.failed", reason: "card_declined", metadata: checkoutMetadata, ...own }),
      expect.objectContaining({ type: "checkout.completed", checkoutId: paid.id, metadata: checkoutMetadata, ...own }),
      expect.objectContaining({ type: "payment.succeeded", metadata: checkoutMetadata, ...own }),
      expect.objectContaining({ type: "order.confirmed", metadata: checkoutMetadata, ...own }),
      expect.objectContaining({ type: "upsell.accepted", offerId: "o1", metadata: sessionMetadata, ...own }),
      expect.objectContaining({ type: "upsell.declined", offerId: "o2", metadata: sessionMetadata, ...own }),
      expect.objectContaining({ type: "refund.succeeded", orderId: paid.orderId, metadata: refundMetadata, ...own }),
      expect.objectContaining({ type: "refund.succeeded", orderId: `${paid.orderId}-up`, metadata: {}, ...own }),
    ]));

    // Kept on the orders (the upsell's too), and shown by GET /api/v1/orders/<orderId>.
    const rows = await t.deps.database.db.select({ orderId: orders.orderId, metadata: orders.metadata }).from(orders).where(eq(orders.brandId, shop.brandId));
    expect(rows.filter((r) => r.orderId.startsWith(paid.orderId))).toEqual(
      expect.arrayContaining([{ orderId: paid.orderId, metadata: checkoutMetadata }, { orderId: `${paid.orderId}-up`, metadata: checkoutMetadata }]),
    );
    const detail = await withKey(t, "GET", `/api/v1/orders/${paid.orderId}`, key);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(json(detail)).toMatchObject({ checkoutId: paid.id, metadata: checkoutMetadata, refunds: expect.arrayContaining([expect.objectContaining({ metadata: refundMetadata }), expect.objectContaining({ metadata: {} })]) });
    const adminDetail = await adminCall(t, "GET", `/api/admin/orders/${json(detail).id}`, { session: shop.session });
    expect(json(adminDetail)).toMatchObject({ checkoutId: paid.id, metadata: checkoutMetadata });

    // The id in the events finds the checkout; another brand's key finds nothing.
    const found = await withKey(t, "GET", `/api/v1/checkouts/${paid.id}`, key);
    expect(found.statusCode, found.body).toBe(200);
    expect(json(found)).toMatchObject({ id: paid.id, orderId: paid.orderId, status: "completed" });
    const rival = await withKey(t, "GET", `/api/v1/checkouts/${paid.id}`, rivalKey);
    expect(rival.statusCode).toBe(404);
    expect(json(rival)).toMatchObject({ code: "NOT_FOUND" });
  });

  it("a second POST for the same orderId answers the same id; GET follows the newest link", async () => {
    const body = checkoutBody({ expiresInSeconds: 60 });
    const first = json(await createCheckout(body));
    t.clock.advance(61_000);
    expect(json(await withKey(t, "GET", `/api/v1/checkouts/${first.id}`, key)).status).toBe("expired");
    const second = await createCheckout({ ...body, expiresInSeconds: 600 });
    expect(second.statusCode, second.body).toBe(201);
    expect(json(second).id).toBe(first.id);
    expect(json(second).token).not.toBe(first.token);
    expect(json(await withKey(t, "GET", `/api/v1/checkouts/${first.id}`, key))).toMatchObject({ id: first.id, status: "open", expiresAt: json(second).expiresAt });
    expect((await post(t, "/api/checkout/initialize", { token: json(second).token, provider: "vault_gateway_b" })).statusCode).toBe(200);
    const events = await eventsOfCheckout(first.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "checkout.created", checkoutId: first.id, metadata: {}, checkoutMetadata: {} });
  });

  // PostgreSQL only (PGlite runs one statement at a time). Concurrent first opens all take the API's id:
  // one row and one checkout.created under it. The primary-key race saveInitializedCheckout retries could
  // not be produced here (40 at once, retry removed, still green), so this guards the outcome, not that retry.
  it.runIf(testEngine === "postgres")("concurrent first opens of an API checkout make one checkouts row under the API's id, and answer 200 each", async () => {
    const body = checkoutBody();
    const { id, token } = json(await createCheckout(body));
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" })));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    const rows = await t.deps.database.db.select({ id: checkouts.id }).from(checkouts).where(eq(checkouts.orderId, body.orderId));
    expect(rows).toEqual([{ id }]);
    expect((await eventsOfCheckout(id)).map((e) => e.type)).toEqual(["checkout.created"]);
  });

  it("a checkout opened from a signed token is found by the chk_ id its events carry, for its brand's key only", async () => {
    const claims = orderClaims({ brandId: shop.brandId, amount: AMOUNT, metadata: { source: "signed" } });
    const init = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "vault_gateway_b" });
    expect(init.statusCode, init.body).toBe(200);
    const [created] = await t.deps.database.db.select().from(outboxEvents).where(eq(outboxEvents.type, "checkout.created")).then((rows) => rows.filter((r) => (r.payload as { orderId: string }).orderId === claims.orderId));
    const checkoutId = (created!.payload as { checkoutId: string }).checkoutId;
    expect(created!.payload).toMatchObject({ metadata: { source: "signed" }, checkoutMetadata: { source: "signed" } });
    const found = await withKey(t, "GET", `/api/v1/checkouts/${checkoutId}`, key);
    expect(found.statusCode, found.body).toBe(200);
    expect(json(found)).toMatchObject({ id: checkoutId, orderId: claims.orderId, status: "initialized", provider: "vault_gateway_b", amount: AMOUNT });
    expect((await withKey(t, "GET", `/api/v1/checkouts/${checkoutId}`, rivalKey)).statusCode).toBe(404);
    // A later API checkout for that orderId answers the checkout's id.
    const again = await createCheckout({ orderId: claims.orderId, amount: AMOUNT, currency: "USD", productName: "Plan" });
    expect(again.statusCode, again.body).toBe(201);
    expect(json(again).id).toBe(checkoutId);
  });
});
