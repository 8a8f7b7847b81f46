// Issue 16 hole 2 (CONTRACT §36): the upsell flow never redirects to anything but an absolute http(s)
// URL without userinfo: a successUrl stored before tokens were checked is replaced by /success, and
// an offer's externalPageUrl with userinfo or another scheme is refused in the API body.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";
import { AMOUNT, PAY_BY_PROVIDER } from "../../test/support/provider-payments.js";
import { upsellSessions } from "../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function completedOrder() {
  const provider = "vault_gateway_b";
  const order = orderClaims({ amount: AMOUNT, currency: "USD", successUrl: "https://shop.example/thanks" });
  const orderId = order.orderId as string;
  expect((await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider })).statusCode).toBe(200);
  const paid = await PAY_BY_PROVIDER[provider](t, orderId);
  const done = await post(t, "/api/checkout/complete", { orderId, transactionId: paid.transactionId, provider, customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
  expect(done.statusCode, done.body).toBe(200);
  return { orderId, provider, paymentMethodToken: json(done).paymentMethodToken as string };
}

const createSession = (order: Awaited<ReturnType<typeof completedOrder>>, offers: unknown[]) =>
  post(t, "/api/upsell/create-session", { orderId: `${order.orderId}-up`, originalOrderId: order.orderId, customerEmail: "ada@example.com", paymentMethodToken: order.paymentMethodToken, provider: order.provider, offers });

describe("upsell redirect targets", () => {
  it("redirects a finished flow whose stored successUrl is javascript: to /success, never to the script", async () => {
    const order = await completedOrder();
    const created = await createSession(order, [{ id: "a", name: "A", price: 1200 }]);
    expect(created.statusCode, created.body).toBe(200);
    const sessionId = json(created).sessionId as string;
    // As a row written before tokens' URLs were checked.
    await t.deps.database.db.update(upsellSessions).set({ successUrl: "javascript:alert(document.domain)//" }).where(eq(upsellSessions.id, sessionId));
    const res = await t.app.inject({ method: "POST", url: `/upsell/action/decline/${sessionId}`, payload: "", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe("/success");
    const again = await t.app.inject({ method: "GET", url: `/upsell/action/accept/${sessionId}` });
    expect(again.headers.location).toBe("/success");
    const offer = json(await t.app.inject({ method: "GET", url: `/api/upsell/session/${sessionId}/offer` }));
    expect(offer.successUrl).toBeNull();
  });

  it("refuses an externalPageUrl with userinfo or another scheme: 400 naming the field", async () => {
    const order = await completedOrder();
    for (const externalPageUrl of ["https://shop.example@evil.example/a", "javascript:alert(1)//https://x", "//evil.example/a"]) {
      const res = await createSession(order, [{ id: "a", name: "A", price: 1200 }, { id: "b", name: "B", price: 900, externalPageUrl }]);
      expect(res.statusCode, `${externalPageUrl}: ${res.body}`).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "offers.1.externalPageUrl" });
    }
  });
});
