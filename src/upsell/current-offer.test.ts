// GET /api/upsell/session/<id>/offer, the hosted upsell page's read: the current offer with the
// prices fixed at creation, the downsell after a decline, nothing once finished or expired, and 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { post } from "../../test/support/checkout.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { PAYMENT_PROVIDERS, type PaymentProviderType } from "../providers/types.js";

let t: TestApp;
beforeAll(async () => {
  // The per-provider checks refuse one charge each from the same client address.
  t = await buildTestApp({ env: { DECLINE_LIMIT: "100" } });
});
afterAll(() => t.close());

async function session(offers: unknown[], claims: Record<string, unknown> = {}, options: { provider?: PaymentProviderType; cardNumber?: string } = {}) {
  const { orderId, provider, paymentMethodToken } = await completeCheckoutViaApi(t, { claims, ...options });
  const res = await post(t, "/api/upsell/create-session", { orderId: `${orderId}-up`, originalOrderId: orderId, customerEmail: "ada@example.com", paymentMethodToken, provider, offers });
  expect(res.statusCode, res.body).toBe(200);
  return { ...(json(res) as { sessionId: string; expiresAt: number }), orderId };
}
const read = (id: string) => t.app.inject({ method: "GET", url: `/api/upsell/session/${id}/offer` });

describe("current offer read", () => {
  it("walks offer → downsell → finished, with the creation prices and the checkout's successUrl", async () => {
    const { sessionId, expiresAt, orderId } = await session(
      [
        { id: "kit", name: "Travel kit", description: "Fits the bag", price: 1900, originalPrice: 2900, image: "https://cdn.example/kit.png", downsell: { id: "kit-lite", name: "Travel kit lite", price: 900 } },
      ],
      { successUrl: "https://shop.example/thanks" },
    );
    const first = await read(sessionId);
    expect(first.statusCode).toBe(200);
    expect(first.headers["cache-control"]).toBe("no-store");
    expect(json(first)).toEqual({
      success: true,
      status: "active",
      orderId,
      currency: "USD",
      expiresAt,
      successUrl: "https://shop.example/thanks",
      payWithCard: true,
      offer: { id: "kit", name: "Travel kit", description: "Fits the bag", price: 1900, originalPrice: 2900, image: "https://cdn.example/kit.png", isDownsell: false },
      // Issue 36: the page says the first order went through, with its amount.
      originalOrder: { amount: 1000, currency: "USD" },
    });
    expect((await post(t, "/api/upsell/decline", { sessionId, offerId: "kit", price: 1 })).statusCode).toBe(200);
    expect(json(await read(sessionId)).offer).toEqual({ id: "kit-lite", name: "Travel kit lite", price: 900, isDownsell: true });
    expect((await post(t, "/api/upsell/accept", { sessionId, offerId: "kit-lite" })).statusCode).toBe(200);
    expect(json(await read(sessionId))).toMatchObject({ status: "completed", offer: null, successUrl: "https://shop.example/thanks" });
  });

  it("an expired session shows no offer; without a successUrl the flow ends at null (/success)", async () => {
    const { sessionId, expiresAt, orderId } = await session([{ id: "x", name: "X", price: 500 }]);
    expect(json(await read(sessionId))).toMatchObject({ status: "active", successUrl: null, offer: { id: "x" } });
    t.clock.set(expiresAt);
    expect(json(await read(sessionId))).toMatchObject({ status: "expired", offer: null });
  });

  it("an unknown session is 404 Session not found", async () => {
    const res = await read("ups_unknown");
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ error: "Session not found", code: "NOT_FOUND" });
  });

  // The page shows its card form after a refused one-click charge only when this says so.
  const TAKES_NEW_CARD: Record<PaymentProviderType, boolean> = {
    intent_gateway: false,
    vault_gateway_a: true,
    vault_gateway_b: true,
    order_crm_a: false,
    order_crm_b: false,
    hosted_store: false,
    cart_gateway: false,
  };
  it.each([...PAYMENT_PROVIDERS])("payWithCard for %s says whether pay-with-card takes a card after a refusal", async (provider) => {
    // 4000000000000341 pays the checkout; the one-click charge of its saved method is then refused.
    const { sessionId, orderId } = await session([{ id: "a", name: "A", price: 900 }], {}, { provider, cardNumber: "4000000000000341" });
    expect(json(await read(sessionId))).toMatchObject({ status: "active", payWithCard: TAKES_NEW_CARD[provider], offer: { id: "a" } });
    const accepted = await post(t, "/api/upsell/accept", { sessionId, offerId: "a" });
    // The hosted store's checkout takes no card here, so its saved method is not refused: nothing to pay by card.
    if (accepted.statusCode !== 402) return expect([provider, accepted.statusCode]).toEqual(["hosted_store", 200]);
    const paid = await post(t, "/api/upsell/pay-with-card", { sessionId, offerId: "a", cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2099", cardCvv: "123" });
    if (TAKES_NEW_CARD[provider]) expect(paid.statusCode, paid.body).toBe(200);
    else expect(json(paid)).toMatchObject({ error: `Invalid request: upsells of ${provider} cannot be paid with another card`, code: "VALIDATION_ERROR", details: "provider" });
    // The flag stays the same after the answer (the page reads it again after each one).
    expect(json(await read(sessionId))).toMatchObject({ orderId, payWithCard: TAKES_NEW_CARD[provider] });
  });
});
