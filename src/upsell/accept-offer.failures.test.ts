// Error paths of accept not covered by accept-offer.test.ts: CONTRACT §21's decline limit (429) and
// live mode. The 502 PROVIDER_ERROR path has no test: no demo adapter throws ProviderError for any
// input, and faking one would mean mocking our own provider registry.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { post } from "../../test/support/checkout.js";
import { completeCheckoutViaApi, createUpsellSession } from "../../test/support/completed-checkout.js";
import { demoProviderRecords, paymentDeclines } from "../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { DECLINE_LIMIT: "3" } });
});
afterAll(() => t.close());
const db = () => t.deps.database.db;

/** A checkout completed through the public API with `cardNumber`, then an upsell session on it. */
async function upsellSession(cardNumber: string) {
  return createUpsellSession(t, await completeCheckoutViaApi(t, { cardNumber }), [{ id: "a", name: "Offer a", price: 1500 }]);
}

const accept = (sessionId: string, offerId: string) => post(t, "/api/upsell/accept", { sessionId, offerId });
const declines = (orderId: string) => db().select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId));
const providerRecords = (orderId: string) => db().select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, orderId));

describe("CONTRACT §21: too many declines", () => {
  it("after DECLINE_LIMIT refused upsell charges, accept answers 429 TOO_MANY_DECLINES without calling the provider", async () => {
    const s = await upsellSession("4000000000000341");
    for (let i = 0; i < 3; i++) {
      const res = await accept(s.sessionId, "a");
      expect(res.statusCode, res.body).toBe(402);
      expect(json(res)).toMatchObject({ code: "PAYMENT_FAILED" });
    }
    expect(await declines(s.upsellOrderId)).toHaveLength(3);
    const recordsBefore = (await providerRecords(s.upsellOrderId)).length;

    for (let i = 0; i < 2; i++) {
      const res = await accept(s.sessionId, "a");
      expect(res.statusCode, res.body).toBe(429);
      expect(json(res)).toMatchObject({ code: "TOO_MANY_DECLINES", error: "Too many declined payments, try again later" });
    }
    // Neither a new decline nor any provider record: the refusal came before the provider call.
    expect(await declines(s.upsellOrderId)).toHaveLength(3);
    expect(await providerRecords(s.upsellOrderId)).toHaveLength(recordsBefore);

    // The window is DECLINE_WINDOW_SECONDS (default 600): once it has passed, the provider is asked again.
    t.clock.advance(600_000);
    // The session itself expires after 30 minutes, but 10 have passed: accept reaches the provider (402, not 429).
    const later = await accept(s.sessionId, "a");
    expect(later.statusCode, later.body).toBe(402);
    expect(await declines(s.upsellOrderId)).toHaveLength(4);
  });
});

describe("PAYMENT_MODE=live", () => {
  // In live mode the demo providers are refused (503), so no checkout completes and no upsell session
  // can exist; the 503 of accept's provider lookup is unreachable through the API. What can be checked:
  // accept's session checks come first, so an unknown session is 404 as in test mode.
  it("accept of an unknown session is 404 Session not found, as in test mode", async () => {
    const live = await buildTestApp({ env: { PAYMENT_MODE: "live" } });
    try {
      const res = await post(live, "/api/upsell/accept", { sessionId: "ups_nope", offerId: "a" });
      expect(res.statusCode).toBe(404);
      expect(json(res)).toMatchObject({ error: "Session not found", code: "NOT_FOUND" });
    } finally {
      await live.close();
    }
  });
});
