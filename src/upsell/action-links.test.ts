// CONTRACT §9 action links: each redirect (next external page with sessionId, hosted page, downsell,
// successUrl, /success, /success?error=…), 303 for the form POST, and a robot's GET never acting.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";
import { AMOUNT, PAY_BY_PROVIDER } from "../../test/support/provider-payments.js";
import { demoProviderRecords, orders, outboxEvents } from "../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** A checkout completed through the public API, then an upsell session on it. */
async function upsellSession(offers: unknown[], options: { successUrl?: string; cardNumber?: string } = {}) {
  const provider = "vault_gateway_b";
  const order = orderClaims({ amount: AMOUNT, currency: "USD", ...(options.successUrl ? { successUrl: options.successUrl } : {}) });
  const orderId = order.orderId as string;
  expect((await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider })).statusCode).toBe(200);
  const paid = await PAY_BY_PROVIDER[provider](t, orderId, options.cardNumber);
  const done = await post(t, "/api/checkout/complete", { orderId, transactionId: paid.transactionId, provider, customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
  expect(done.statusCode, done.body).toBe(200);
  const res = await post(t, "/api/upsell/create-session", {
    orderId: `${orderId}-up`,
    originalOrderId: orderId,
    customerEmail: "ada@example.com",
    paymentMethodToken: json(done).paymentMethodToken,
    provider,
    offers,
  });
  expect(res.statusCode, res.body).toBe(200);
  return { sessionId: json(res).sessionId as string, upsellOrderId: `${orderId}-up` };
}

const offer = (id: string, extra: Record<string, unknown> = {}) => ({ id, name: `Offer <${id}>`, price: 1200, ...extra });
/** A person's click: the browser marks a user-activated navigation with Sec-Fetch-User: ?1. */
const click = (action: string, sessionId: string) => t.app.inject({ method: "GET", url: `/upsell/action/${action}/${sessionId}`, headers: { "sec-fetch-user": "?1", "sec-fetch-mode": "navigate" } });
const submit = (action: string, sessionId: string) =>
  t.app.inject({ method: "POST", url: `/upsell/action/${action}/${sessionId}`, payload: "", headers: { "content-type": "application/x-www-form-urlencoded" } });
const sessionOf = async (sessionId: string) => json(await t.app.inject({ method: "GET", url: `/api/upsell/session/${sessionId}` })).session;

describe("action links", () => {
  it("walk the flow: next external page with sessionId, the hosted page, then the checkout's successUrl", async () => {
    const { sessionId } = await upsellSession(
      [offer("a", { externalPageUrl: "https://shop.example/a" }), offer("b", { externalPageUrl: "https://shop.example/b?ref=x" }), offer("c")],
      { successUrl: "https://shop.example/thanks" },
    );
    const first = await click("accept", sessionId);
    expect(first.statusCode).toBe(302);
    expect(first.headers.location).toBe(`https://shop.example/b?ref=x&sessionId=${sessionId}`);
    const second = await click("decline", sessionId);
    expect(second.statusCode).toBe(302);
    expect(second.headers.location).toBe(`/upsell/${sessionId}`);
    const third = await click("accept", sessionId);
    expect(third.headers.location).toBe("https://shop.example/thanks");
    expect(await sessionOf(sessionId)).toMatchObject({ status: "completed", acceptedOffers: ["a", "c"], declinedOffers: ["b"], totalUpsellAmount: 2400 });
    // A finished flow only redirects.
    expect((await click("accept", sessionId)).headers.location).toBe("https://shop.example/thanks");
  });

  it("decline leads to the downsell; a finished flow without successUrl goes to /success", async () => {
    const { sessionId } = await upsellSession([offer("a", { downsell: offer("a-down", { externalPageUrl: "https://shop.example/down" }) })]);
    expect((await click("decline", sessionId)).headers.location).toBe(`https://shop.example/down?sessionId=${sessionId}`);
    expect((await click("decline", sessionId)).headers.location).toBe("/success");
    expect(await sessionOf(sessionId)).toMatchObject({ status: "completed", declinedOffers: ["a", "a-down"] });
  });

  it("a form POST always acts and answers 303", async () => {
    const { sessionId, upsellOrderId } = await upsellSession([offer("a"), offer("b")]);
    const res = await submit("accept", sessionId);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/upsell/${sessionId}`);
    expect(await sessionOf(sessionId)).toMatchObject({ acceptedOffers: ["a"] });
    expect(await t.deps.database.db.select().from(orders).where(and(eq(orders.orderId, upsellOrderId), eq(orders.kind, "upsell")))).toHaveLength(1);
    const empty = await t.app.inject({ method: "POST", url: `/upsell/action/decline/${sessionId}` });
    expect(empty.statusCode).toBe(303);
    expect(await sessionOf(sessionId)).toMatchObject({ status: "completed", declinedOffers: ["b"] });
  });

  it.each([
    ["no Sec-Fetch headers (crawler, mail scanner)", {}],
    ["a link preview's non-user navigation", { "sec-fetch-mode": "navigate", "sec-fetch-user": "?0" }],
  ])("a GET without a user activation gets a confirmation page and leaves the session untouched: %s", async (_name, headers) => {
    const { sessionId, upsellOrderId } = await upsellSession([offer("a"), offer("b")]);
    const before = await sessionOf(sessionId);
    for (const action of ["accept", "decline"]) {
      const res = await t.app.inject({ method: "GET", url: `/upsell/action/${action}/${sessionId}`, headers });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
      expect(res.body).toContain(`<form method="post" action="/upsell/action/${action}/${sessionId}">`);
      expect(res.body).toContain("Offer &#60;a&#62;");
      expect(res.body).not.toContain("<a>");
    }
    expect(await sessionOf(sessionId)).toEqual(before);
    expect(await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, upsellOrderId))).toHaveLength(0);
    const events = await t.deps.database.db.select().from(outboxEvents);
    expect(events.filter((e) => e.payload.sessionId === sessionId)).toHaveLength(0);
  });

  it("unknown session: /success?error=session_not_found", async () => {
    for (const res of [await click("accept", "ups_unknown"), await submit("decline", "ups_unknown"), await t.app.inject({ method: "GET", url: "/upsell/action/accept/ups_unknown" })]) {
      expect([302, 303]).toContain(res.statusCode);
      expect(res.headers.location).toBe("/success?error=session_not_found");
    }
  });

  it("expired session: /success?error=session_expired, nothing charged", async () => {
    const { sessionId, upsellOrderId } = await upsellSession([offer("a")]);
    t.clock.advance(1_800_000);
    for (const res of [await click("accept", sessionId), await submit("accept", sessionId), await t.app.inject({ method: "GET", url: `/upsell/action/accept/${sessionId}` })]) {
      expect(res.headers.location).toBe("/success?error=session_expired");
    }
    expect(await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, upsellOrderId))).toHaveLength(0);
  });

  it("a refused charge returns to the same offer with error=payment_failed and leaves it open", async () => {
    const { sessionId } = await upsellSession([offer("a", { externalPageUrl: "https://shop.example/a" }), offer("b")], { cardNumber: "4000000000000341" });
    expect((await click("accept", sessionId)).headers.location).toBe(`https://shop.example/a?sessionId=${sessionId}&error=payment_failed`);
    expect(await sessionOf(sessionId)).toMatchObject({ status: "active", acceptedOffers: [], declinedOffers: [] });
  });

  it("an unknown action is refused", async () => {
    const res = await t.app.inject({ method: "GET", url: "/upsell/action/buy/ups_x", headers: { "sec-fetch-user": "?1" } });
    expect(res.statusCode).toBe(400);
  });

  it("the urlencoded parser is the action links' only: other POSTs still refuse form bodies", async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/upsell/accept", payload: "sessionId=x&offerId=y", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.statusCode).toBe(415);
  });
});
