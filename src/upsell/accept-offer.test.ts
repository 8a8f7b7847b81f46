// SPEC "Upsell" accept, decline and session with its state table and error table, CONTRACT §7
// (exactly-once accept, 20 at once), §9 downsells, §20 fixed prices and §25's declining saved method,
// charged through each provider's demo adapter.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../test/support/database.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { post } from "../../test/support/checkout.js";
import { completeCheckoutViaApi, createUpsellSession, type Offer } from "../../test/support/completed-checkout.js";
import { demoProviderRecords, orderLineItems, orders, outboxEvents, upsellOfferResults, upsellSessions } from "../db/schema/index.js";
import { offerStatsOfBrand } from "./store.js";
import { PAYMENT_PROVIDERS, type PaymentProviderType } from "../providers/types.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());
const db = () => t.deps.database.db;

const HOOKED = { successUrl: "https://shop.example/thanks", webhookUrl: "https://shop.example/hook" };
const completedCheckout = (provider: PaymentProviderType = "vault_gateway_b", cardNumber?: string) => completeCheckoutViaApi(t, { provider, cardNumber, claims: HOOKED });

const offer = (id: string, price = 1500, extra: Record<string, unknown> = {}) => ({ id, name: `Offer ${id}`, price, ...extra });
const DEFAULT_OFFERS = [offer("a", 1500, { downsell: offer("a-down", 700) }), offer("b", 2500)];

/** A completed checkout and an upsell session on it. */
async function upsellSession(options: { provider?: PaymentProviderType; cardNumber?: string; offers?: Offer[] } = {}) {
  const original = await completedCheckout(options.provider, options.cardNumber);
  const session = await createUpsellSession(t, original, options.offers ?? DEFAULT_OFFERS);
  const [row] = await db().select().from(upsellSessions).where(eq(upsellSessions.id, session.sessionId));
  return { ...original, ...session, brandId: row!.brandId };
}

const accept = (sessionId: string, offerId: string, extra: Record<string, unknown> = {}) => post(t, "/api/upsell/accept", { sessionId, offerId, ...extra });
const decline = (sessionId: string, offerId: string) => post(t, "/api/upsell/decline", { sessionId, offerId });
const getSession = async (sessionId: string) => json(await t.app.inject({ method: "GET", url: `/api/upsell/session/${sessionId}` })).session;
const upsellOrders = (orderId: string) => db().select().from(orders).where(and(eq(orders.orderId, orderId), eq(orders.kind, "upsell")));
const eventsOf = (type: string, sessionId: string) =>
  db()
    .select()
    .from(outboxEvents)
    .where(and(eq(outboxEvents.type, type)))
    .then((rows) => rows.filter((r) => r.payload.sessionId === sessionId));
const savedCharges = (orderId: string) => db().select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, orderId));

describe("session resource", () => {
  it("GET answers the exact members of SPEC's Upsell session", async () => {
    const s = await upsellSession();
    const res = await t.app.inject({ method: "GET", url: `/api/upsell/session/${s.sessionId}` });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({
      success: true,
      session: { id: s.sessionId, status: "active", currentStep: 0, totalOffers: 2, acceptedOffers: [], declinedOffers: [], totalUpsellAmount: 0, expiresAt: t.clock.now() + 1_800_000 },
    });
  });

  it("an unknown session is 404", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/upsell/session/ups_nope" });
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ error: "Session not found", code: "NOT_FOUND" });
    expect((await accept("ups_nope", "a")).statusCode).toBe(404);
    expect((await decline("ups_nope", "a")).statusCode).toBe(404);
  });
});

describe("state table: active + accept", () => {
  it("charges the saved method the price fixed at creation, creates a linked upsell order and upsell.accepted; stays active", async () => {
    const s = await upsellSession();
    const res = await accept(s.sessionId, "a", { amount: 1, price: 1 });
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body).toEqual({ success: true, transactionId: expect.stringMatching(/^vgb_txn_/), offerAccepted: "a", amountCharged: 1500, hasMoreOffers: true, totalUpsellAmount: 1500 });

    const [order] = await upsellOrders(s.upsellOrderId);
    const [parent] = await db().select().from(orders).where(and(eq(orders.orderId, s.orderId), eq(orders.kind, "checkout")));
    expect(order).toMatchObject({ kind: "upsell", parentOrderId: parent!.id, amountCents: 1500, currency: "USD", transactionId: body.transactionId, provider: "vault_gateway_b", brandId: parent!.brandId, paymentMethodToken: null });
    expect(await db().select().from(orderLineItems).where(eq(orderLineItems.orderRef, order!.id))).toMatchObject([{ itemId: "a", quantity: 1, unitPriceCents: 1500 }]);
    const charges = await savedCharges(s.upsellOrderId);
    expect(charges).toMatchObject([{ id: body.transactionId, status: "succeeded", amountCents: 1500, currency: "USD" }]);

    const [event] = await eventsOf("upsell.accepted", s.sessionId);
    expect(event).toMatchObject({ brandId: parent!.brandId, webhookUrl: "https://shop.example/hook" });
    expect(event!.payload).toMatchObject({ offerId: "a", transactionId: body.transactionId, amount: 1500, currency: "USD", originalOrderId: s.orderId, orderId: s.upsellOrderId });

    // The downsell of an accepted offer is skipped: b is next.
    expect(await getSession(s.sessionId)).toMatchObject({ status: "active", currentStep: 1, acceptedOffers: ["a"], declinedOffers: [], totalUpsellAmount: 1500 });
    const [stats] = await offerStatsOfBrand(db(), s.brandId, { offerId: "a", livemode: false });
    expect(stats).toMatchObject({ accepted: 1, revenueCents: 1500 });
  });

  it("accepting the last offer completes the session (hasMoreOffers false)", async () => {
    const s = await upsellSession();
    await accept(s.sessionId, "a");
    const res = await accept(s.sessionId, "b");
    expect(json(res)).toMatchObject({ offerAccepted: "b", amountCharged: 2500, hasMoreOffers: false, totalUpsellAmount: 4000 });
    expect(await getSession(s.sessionId)).toMatchObject({ status: "completed", currentStep: 2, acceptedOffers: ["a", "b"], totalUpsellAmount: 4000 });
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(2);
  });
});

describe("state table: active + decline", () => {
  it("names the downsell next, emits upsell.declined, charges nothing", async () => {
    const s = await upsellSession();
    const res = await decline(s.sessionId, "a");
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ success: true, hasMoreOffers: true, nextOfferId: "a-down" });
    expect(await getSession(s.sessionId)).toMatchObject({ status: "active", currentStep: 1, declinedOffers: ["a"] });
    expect(await eventsOf("upsell.declined", s.sessionId)).toMatchObject([{ payload: { offerId: "a", nextOfferId: "a-down" } }]);
    expect(await savedCharges(s.upsellOrderId)).toHaveLength(0);
  });

  it("declining everything completes the session with nextOfferId null; a repeat replays", async () => {
    const s = await upsellSession();
    await decline(s.sessionId, "a");
    expect(json(await decline(s.sessionId, "a-down"))).toEqual({ success: true, hasMoreOffers: true, nextOfferId: "b" });
    const last = await decline(s.sessionId, "b");
    expect(json(last)).toEqual({ success: true, hasMoreOffers: false, nextOfferId: null });
    expect(await getSession(s.sessionId)).toMatchObject({ status: "completed", currentStep: 3, declinedOffers: ["a", "a-down", "b"], totalUpsellAmount: 0 });
    expect(json(await decline(s.sessionId, "b"))).toEqual(json(last));
    expect(await eventsOf("upsell.declined", s.sessionId)).toHaveLength(3);
  });

  it("a declined offer's downsell can be accepted, at its own fixed price", async () => {
    const s = await upsellSession();
    await decline(s.sessionId, "a");
    expect(json(await accept(s.sessionId, "a-down"))).toMatchObject({ offerAccepted: "a-down", amountCharged: 700, hasMoreOffers: true });
  });
});

describe("errors of SPEC's table", () => {
  it("404 Offer not found in session: unknown offer, or a downsell whose offer was not declined", async () => {
    const s = await upsellSession();
    for (const res of [await accept(s.sessionId, "zzz"), await decline(s.sessionId, "zzz"), await accept(s.sessionId, "a-down")]) {
      expect(res.statusCode).toBe(404);
      expect(json(res)).toMatchObject({ error: "Offer not found in session", code: "OFFER_NOT_FOUND" });
    }
  });

  it("30 minutes elapsed: expired, and every operation is 400 Session expired (moved clock)", async () => {
    const s = await upsellSession();
    await accept(s.sessionId, "a");
    t.clock.advance(1_800_000 - 1);
    expect((await getSession(s.sessionId)).status).toBe("active");
    t.clock.advance(1);
    expect(await getSession(s.sessionId)).toMatchObject({ status: "expired", acceptedOffers: ["a"] });
    for (const res of [await accept(s.sessionId, "b"), await decline(s.sessionId, "b"), await accept(s.sessionId, "a"), await accept(s.sessionId, "zzz")]) {
      expect(res.statusCode).toBe(400);
      expect(json(res)).toMatchObject({ error: "Session expired", code: "SESSION_EXPIRED" });
    }
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(1);
  });

  it("402 Payment failed: the 4000000000000341 card's saved method declines; the offer stays open; payment.failed", async () => {
    const s = await upsellSession({ cardNumber: "4000000000000341" });
    const res = await accept(s.sessionId, "a");
    expect(res.statusCode).toBe(402);
    expect(json(res)).toMatchObject({ error: "Payment failed: card_declined", details: "card_declined", code: "PAYMENT_FAILED" });
    expect(await getSession(s.sessionId)).toMatchObject({ status: "active", currentStep: 0, acceptedOffers: [], declinedOffers: [], totalUpsellAmount: 0 });
    // No answer: the reservation is kept as `refused` (what opens pay-with-card), with no transaction.
    expect(await db().select().from(upsellOfferResults).where(eq(upsellOfferResults.sessionId, s.sessionId))).toMatchObject([{ offerId: "a", decision: "refused", transactionId: null }]);
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(0);
    expect(await eventsOf("upsell.accepted", s.sessionId)).toHaveLength(0);
    expect(await eventsOf("payment.failed", s.sessionId)).toMatchObject([{ payload: { reason: "card_declined", amount: 1500, offerId: "a" } }]);
    // Still open: it can be declined afterwards.
    expect(json(await decline(s.sessionId, "a"))).toMatchObject({ nextOfferId: "a-down" });
  });

  it("409 for the other answer to an answered offer", async () => {
    const s = await upsellSession();
    await accept(s.sessionId, "a");
    expect((await decline(s.sessionId, "a")).statusCode).toBe(409);
    await decline(s.sessionId, "b");
    expect((await accept(s.sessionId, "b")).statusCode).toBe(409);
  });

  it("body validation names the field", async () => {
    const res = await post(t, "/api/upsell/accept", { sessionId: "x" });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "offerId" });
  });
});

describe("CONTRACT §7: accept exactly once", () => {
  it("a sequential repeat returns the first result and charges nothing more", async () => {
    const s = await upsellSession();
    const first = json(await accept(s.sessionId, "a"));
    const again = await accept(s.sessionId, "a");
    expect(again.statusCode).toBe(200);
    expect(json(again)).toEqual(first);
    expect(await savedCharges(s.upsellOrderId)).toHaveLength(1);
  });

  it("honours Idempotency-Key (CONTRACT §17): a repeat is replayed, another body with the key is 422", async () => {
    const s = await upsellSession();
    const headers = { "idempotency-key": `k-${s.sessionId}` };
    const first = await post(t, "/api/upsell/accept", { sessionId: s.sessionId, offerId: "a" }, headers);
    const again = await post(t, "/api/upsell/accept", { sessionId: s.sessionId, offerId: "a" }, headers);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(json(again)).toEqual(json(first));
    const other = await post(t, "/api/upsell/accept", { sessionId: s.sessionId, offerId: "b" }, headers);
    expect(other.statusCode).toBe(422);
    expect(await savedCharges(s.upsellOrderId)).toHaveLength(1);
  });

  // PostgreSQL only: PGlite has one connection and runs transactions one at a time, so this race cannot fail there.
  it.runIf(testEngine === "postgres")("20 concurrent accepts of one offer: one charge, one order, one event, the same result for all", async () => {
    const s = await upsellSession();
    const responses = await Promise.all(Array.from({ length: 20 }, () => accept(s.sessionId, "b")));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const bodies = responses.map((r) => json(r));
    for (const body of bodies) expect(body).toEqual(bodies[0]);
    expect(bodies[0]).toMatchObject({ offerAccepted: "b", amountCharged: 2500, totalUpsellAmount: 2500 });
    expect(await savedCharges(s.upsellOrderId)).toHaveLength(1);
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(1);
    expect(await eventsOf("upsell.accepted", s.sessionId)).toHaveLength(1);
    expect(await getSession(s.sessionId)).toMatchObject({ acceptedOffers: ["b"], totalUpsellAmount: 2500 });
  });
});

// Issue 20: an answer is saved over the session as it was read (no lock taken before the save); two
// offers of one session answered at once conflict on the session, and the later one decides again.
describe("answers to two offers of one session at the same time", () => {
  const TWO_OFFERS = [offer("a", 1500), offer("b", 2500)];
  const answerOf = async (sessionId: string, offerId: string) =>
    (await db().select().from(upsellOfferResults).where(and(eq(upsellOfferResults.sessionId, sessionId), eq(upsellOfferResults.offerId, offerId))))[0]?.decision;

  it("accept of one and decline of the other (20 times): both stored, the session consistent, one charge", async () => {
    for (let i = 0; i < 20; i++) {
      const s = await upsellSession({ offers: TWO_OFFERS });
      const [accepted, declined] = await Promise.all([accept(s.sessionId, "a"), decline(s.sessionId, "b")]);
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect(declined.statusCode, declined.body).toBe(200);
      expect(json(accepted)).toMatchObject({ offerAccepted: "a", amountCharged: 1500, totalUpsellAmount: 1500 });
      // The answer saved second finished the flow: exactly one of the two says no more offers.
      expect([json(accepted).hasMoreOffers, json(declined).hasMoreOffers].sort()).toEqual([false, true]);
      expect(await getSession(s.sessionId)).toMatchObject({ status: "completed", currentStep: 2, acceptedOffers: ["a"], declinedOffers: ["b"], totalUpsellAmount: 1500 });
      expect([await answerOf(s.sessionId, "a"), await answerOf(s.sessionId, "b")]).toEqual(["accepted", "declined"]);
      expect(await savedCharges(s.upsellOrderId)).toHaveLength(1);
      expect(await upsellOrders(s.upsellOrderId)).toMatchObject([{ amountCents: 1500 }]);
      expect(await eventsOf("upsell.accepted", s.sessionId)).toHaveLength(1);
      expect(await eventsOf("upsell.declined", s.sessionId)).toHaveLength(1);
    }
  });

  it("accepts of both (10 times): both charged once, the session's total is their sum", async () => {
    for (let i = 0; i < 10; i++) {
      const s = await upsellSession({ offers: TWO_OFFERS });
      const [first, second] = await Promise.all([accept(s.sessionId, "a"), accept(s.sessionId, "b")]);
      expect(first.statusCode, first.body).toBe(200);
      expect(second.statusCode, second.body).toBe(200);
      // The answer saved first totals its own price, the second both.
      const totals = [json(first).totalUpsellAmount, json(second).totalUpsellAmount].sort((x, y) => x - y);
      expect(totals[1]).toBe(4000);
      expect([1500, 2500]).toContain(totals[0]);
      expect(await getSession(s.sessionId)).toMatchObject({ status: "completed", acceptedOffers: expect.arrayContaining(["a", "b"]), declinedOffers: [], totalUpsellAmount: 4000 });
      expect(await savedCharges(s.upsellOrderId)).toHaveLength(2);
      expect(await upsellOrders(s.upsellOrderId)).toHaveLength(2);
      expect(await eventsOf("upsell.accepted", s.sessionId)).toHaveLength(2);
    }
  });
});

describe.each(PAYMENT_PROVIDERS)("saved-method charge in demo mode: %s", (provider) => {
  it("accept charges through the original order's provider", async () => {
    const s = await upsellSession({ provider });
    const res = await accept(s.sessionId, "a");
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body).toMatchObject({ success: true, amountCharged: 1500 });
    const charges = await savedCharges(s.upsellOrderId);
    expect(charges).toHaveLength(1);
    expect(charges[0]).toMatchObject({ id: body.transactionId, provider, status: "succeeded", amountCents: 1500 });
    expect(await upsellOrders(s.upsellOrderId)).toMatchObject([{ provider, transactionId: body.transactionId }]);
  });
});
