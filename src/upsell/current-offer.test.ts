// GET /api/upsell/session/<id>/offer, the hosted upsell page's read: the current offer with the
// prices fixed at creation, the downsell after a decline, nothing once finished or expired, and 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { post } from "../../test/support/checkout.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function session(offers: unknown[], claims: Record<string, unknown> = {}) {
  const { orderId, provider, paymentMethodToken } = await completeCheckoutViaApi(t, { claims });
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
      offer: { id: "kit", name: "Travel kit", description: "Fits the bag", price: 1900, originalPrice: 2900, image: "https://cdn.example/kit.png", isDownsell: false },
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
    expect(json(res)).toEqual({ error: "Session not found", code: "NOT_FOUND" });
  });
});
