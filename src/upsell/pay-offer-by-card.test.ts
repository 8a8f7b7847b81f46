// Issue 18 item 11: after the one-click charge of an offer is refused, the buyer pays that offer with
// another card (POST /api/upsell/pay-with-card). A money path: the offer's fixed price, the session's
// provider, only after a refusal, exactly once under concurrency, declines counted, and the same order,
// answer and `upsell.accepted` as a one-click accept.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../test/support/database.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { post } from "../../test/support/checkout.js";
import { completeCheckoutViaApi, createUpsellSession } from "../../test/support/completed-checkout.js";
import { demoProviderRecords, orders, outboxEvents, paymentDeclines } from "../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  // Every test refuses charges from the same client address: the limit is tested on its own app below.
  t = await buildTestApp({ env: { DECLINE_LIMIT: "100" } });
});
afterAll(() => t.close());
const db = () => t.deps.database.db;

const SAVED_DECLINES = "4000000000000341";
const GOOD_CARD = { cardNumber: "4242 4242 4242 4242", cardExpMonth: "12", cardExpYear: "2099", cardCvv: "123" };

/** A checkout paid with `cardNumber`, then an upsell session with two offers on it. */
async function upsellSession(cardNumber = SAVED_DECLINES) {
  return createUpsellSession(t, await completeCheckoutViaApi(t, { cardNumber }), [
    { id: "a", name: "Offer a", price: 1500 },
    { id: "b", name: "Offer b", price: 700 },
  ]);
}

const accept = (sessionId: string, offerId: string) => post(t, "/api/upsell/accept", { sessionId, offerId });
const payByCard = (sessionId: string, offerId: string, card: Record<string, unknown> = GOOD_CARD) => post(t, "/api/upsell/pay-with-card", { sessionId, offerId, ...card });
const upsellOrders = (orderId: string) => db().select().from(orders).where(and(eq(orders.orderId, orderId), eq(orders.kind, "upsell")));
const succeededCharges = async (orderId: string) => (await db().select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, orderId))).filter((r) => r.status === "succeeded");
const eventsOf = async (type: string, sessionId: string) => (await db().select().from(outboxEvents).where(eq(outboxEvents.type, type))).filter((r) => r.payload.sessionId === sessionId);
const declines = (orderId: string) => db().select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId));

async function refusedSession() {
  const s = await upsellSession();
  const refused = await accept(s.sessionId, "a");
  expect(refused.statusCode, refused.body).toBe(402);
  expect(json(refused)).toMatchObject({ code: "PAYMENT_FAILED", details: "card_declined" });
  return s;
}

describe("POST /api/upsell/pay-with-card", () => {
  it("refused saved card → another card pays the offer's fixed price: order recorded, upsell.accepted, the flow moves on", async () => {
    const s = await refusedSession();
    // A price from the browser is not a member of the body: it is dropped, the session's price is charged.
    const res = await payByCard(s.sessionId, "a", { ...GOOD_CARD, price: 1, amount: 1 });
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body).toMatchObject({ success: true, offerAccepted: "a", amountCharged: 1500, hasMoreOffers: true, totalUpsellAmount: 1500 });
    expect(body.transactionId).toEqual(expect.any(String));

    const [order, ...more] = await upsellOrders(s.upsellOrderId);
    expect(more).toHaveLength(0);
    expect(order).toMatchObject({ amountCents: 1500, currency: "USD", transactionId: body.transactionId, provider: "vault_gateway_b", paymentMethodToken: null, paidInDemo: true });
    const charges = await succeededCharges(s.upsellOrderId);
    expect(charges.map((c) => [c.amountCents, c.cardLast4])).toEqual([[1500, "4242"]]);
    const [event] = await eventsOf("upsell.accepted", s.sessionId);
    expect(event!.payload).toMatchObject({ offerId: "a", amount: 1500, currency: "USD", transactionId: body.transactionId });

    const session = json(await t.app.inject({ method: "GET", url: `/api/upsell/session/${s.sessionId}` })).session;
    expect(session).toMatchObject({ acceptedOffers: ["a"], currentStep: 1, totalUpsellAmount: 1500 });
    // A repeat (and a one-click accept of the same offer) replays the answer and charges nothing more.
    expect(json(await payByCard(s.sessionId, "a"))).toEqual(body);
    expect(json(await accept(s.sessionId, "a"))).toEqual(body);
    expect(await succeededCharges(s.upsellOrderId)).toHaveLength(1);
  });

  it("without a refused one-click charge of that offer: 409, nothing charged", async () => {
    const s = await upsellSession("4242424242424242");
    const res = await payByCard(s.sessionId, "a");
    expect(res.statusCode, res.body).toBe(409);
    expect(json(res)).toMatchObject({ code: "CONFLICT", error: "Pay with another card is offered only after the one-click charge of this offer was refused" });
    // The refusal of offer a does not open offer b.
    const refused = await refusedSession();
    expect((await payByCard(refused.sessionId, "b")).statusCode).toBe(409);
    expect(await succeededCharges(refused.upsellOrderId)).toHaveLength(0);
    expect(await succeededCharges(s.upsellOrderId)).toHaveLength(0);
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(0);
  });

  // PostgreSQL only: PGlite has one connection and runs transactions one at a time, so this race cannot fail there.
  it.runIf(testEngine === "postgres")("ten concurrent payments of one refused offer charge once; all answer the same", async () => {
    const s = await refusedSession();
    const answers = await Promise.all(Array.from({ length: 10 }, () => payByCard(s.sessionId, "a")));
    expect(answers.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((r) => json(r).transactionId)).size).toBe(1);
    expect(await succeededCharges(s.upsellOrderId)).toHaveLength(1);
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(1);
    expect(await eventsOf("upsell.accepted", s.sessionId)).toHaveLength(1);
  });

  it("an unknown session is 404 Session not found", async () => {
    const res = await payByCard("ups_00000000000000000000000000000000", "a");
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ error: "Session not found" });
  });

  it("a bad card is 400 naming the field before any provider call; a declined card is 402, counted, payment.failed, the offer still open", async () => {
    const s = await refusedSession();
    const before = (await declines(s.upsellOrderId)).length;
    const bad = await payByCard(s.sessionId, "a", { ...GOOD_CARD, cardNumber: "4242424242424241" });
    expect(bad.statusCode).toBe(400);
    expect(json(bad)).toMatchObject({ code: "VALIDATION_ERROR", details: "cardNumber" });
    expect(bad.body).not.toContain("4242424242424241");
    const missing = await post(t, "/api/upsell/pay-with-card", { sessionId: s.sessionId, offerId: "a" });
    expect(missing.statusCode).toBe(400);

    const declined = await payByCard(s.sessionId, "a", { ...GOOD_CARD, cardNumber: "4000000000000002" });
    expect(declined.statusCode).toBe(402);
    expect(json(declined)).toMatchObject({ code: "PAYMENT_FAILED", error: "Payment failed: card_declined" });
    expect(await declines(s.upsellOrderId)).toHaveLength(before + 1);
    // Issue 36 item 7: the new card's decline keeps its keyed fingerprint (never the number); the one-click refusal, with no card, none.
    const fingerprints = (await declines(s.upsellOrderId)).map((row) => row.cardFingerprint);
    expect(fingerprints.filter((f) => f === null)).toHaveLength(before);
    expect(fingerprints.filter((f) => f !== null && /^[0-9a-f]{64}$/.test(f))).toHaveLength(1);
    expect(JSON.stringify(await declines(s.upsellOrderId))).not.toContain("4000000000000002");
    expect((await eventsOf("payment.failed", s.sessionId)).map((e) => e.payload.offerId)).toEqual(["a", "a"]);
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(0);
    // Still refused, still payable with another card.
    expect((await payByCard(s.sessionId, "a")).statusCode).toBe(200);
  });

  it("a provider whose card call cannot charge an amount (cart_gateway) answers 400 naming the provider, nothing charged", async () => {
    const { sessionId, upsellOrderId } = await createUpsellSession(t, await completeCheckoutViaApi(t, { provider: "cart_gateway", cardNumber: SAVED_DECLINES }), [{ id: "a", name: "A", price: 900 }]);
    expect((await accept(sessionId, "a")).statusCode).toBe(402);
    const res = await payByCard(sessionId, "a");
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ error: "Invalid request: upsells of cart_gateway cannot be paid with another card", code: "VALIDATION_ERROR", details: "provider" });
    expect(await succeededCharges(upsellOrderId)).toHaveLength(0);
  });

  it("counts toward the decline limit: past it, 429 before any provider call", async () => {
    const limited = await buildTestApp({ env: { DECLINE_LIMIT: "2" } });
    try {
      const { sessionId } = await createUpsellSession(limited, await completeCheckoutViaApi(limited, { cardNumber: SAVED_DECLINES }), [{ id: "a", name: "A", price: 900 }]);
      expect((await post(limited, "/api/upsell/accept", { sessionId, offerId: "a" })).statusCode).toBe(402);
      expect((await post(limited, "/api/upsell/pay-with-card", { sessionId, offerId: "a", ...GOOD_CARD, cardNumber: "4000000000000002" })).statusCode).toBe(402);
      const res = await post(limited, "/api/upsell/pay-with-card", { sessionId, offerId: "a", ...GOOD_CARD });
      expect(res.statusCode, res.body).toBe(429);
      expect(json(res)).toMatchObject({ code: "TOO_MANY_DECLINES" });
    } finally {
      await limited.close();
    }
  });
});
