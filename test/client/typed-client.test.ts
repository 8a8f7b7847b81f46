// The typed merchant client (client/, issue 33 item 5): a whole merchant flow through it against a
// test app listening on a port (key → checkout → the buyer pays → order → upsell → refund), its
// answers typed by the generated schema; and its committed files match the document the routes make.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { createCheckoutClient, type CheckoutClient } from "../../client/index.js";
import { CLIENT_DOCUMENT, CLIENT_SCHEMA, documentText, merchantDocument, schemaText } from "../../scripts/generate-client.mjs";
import { registerOwner } from "../support/admin.js";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { completionBody } from "../support/completed-checkout.js";
import { card } from "../support/provider-payments.js";
import { createApiKey } from "../support/merchant.js";

let t: TestApp;
let baseUrl: string;
let apiKey: string;
beforeAll(async () => {
  t = await buildTestApp();
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  const owner = await registerOwner(t, "Client shop");
  apiKey = (await createApiKey(t, owner.session, { name: "typed client" })).secret;
});
afterAll(async () => {
  await t?.close();
});

/** The buyer's browser: plain JSON POSTs to the public endpoints, no key. */
async function buyer(path: string, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(new URL(path, baseUrl), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const answer = (await res.json()) as Record<string, any>;
  expect(res.status, `${path}: ${JSON.stringify(answer)}`).toBe(200);
  return answer;
}

describe("the typed client", () => {
  it("drives a merchant flow: checkout, the buyer pays, order, upsell, refund", async () => {
    const client: CheckoutClient = createCheckoutClient({ baseUrl, apiKey, version: "2026-11-28" });
    const orderId = `client-${t.clock.now()}`;

    // 1. The merchant's server creates the checkout.
    const created = await client.POST("/api/v1/checkouts", {
      body: { orderId, amount: 4999, currency: "USD", productName: "Premium plan", successUrl: "https://shop.example.com/thanks", metadata: { cart: "c-1" } },
      headers: { "idempotency-key": `create-${orderId}` },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    expect(created.error).toBeUndefined();
    const checkout = created.data!;
    expectTypeOf(checkout.expiresAt).toEqualTypeOf<number>();
    expect(checkout).toMatchObject({ id: expect.stringMatching(/^chk_/), orderId, url: `http://checkout.test/checkout/${checkout.token}` });

    const opened = await client.GET("/api/v1/checkouts/{id}", { params: { path: { id: checkout.id } } });
    expectTypeOf(opened.data!.status).toEqualTypeOf<"open" | "initialized" | "completed" | "expired">();
    expect(opened.data).toMatchObject({ id: checkout.id, orderId, status: "open", amount: 4999, currency: "USD", provider: null, completedAt: null });

    // 2. The buyer pays on the hosted checkout (demo mode, a succeeding card) and the page completes.
    await buyer("/api/checkout/initialize", { token: checkout.token, provider: "vault_gateway_b" });
    const paid = await buyer("/api/providers/vault_gateway_b/process-payment", { orderId, amount: 4999, ...card() });
    await buyer("/api/checkout/complete", completionBody({ orderId, provider: "vault_gateway_b", transactionId: paid.transactionId, amount: 4999 }));

    const completed = await client.GET("/api/v1/checkouts/{id}", { params: { path: { id: checkout.id } } });
    expect(completed.data).toMatchObject({ status: "completed", provider: "vault_gateway_b", completedAt: expect.any(Number) });

    // 3. The merchant verifies the order.
    const order = await client.GET("/api/v1/orders/{orderId}", { params: { path: { orderId } } });
    expect(order.response.status).toBe(200);
    expect(order.data).toMatchObject({ orderId, status: "paid", amount: 4999, currency: "USD", provider: "vault_gateway_b", transactionId: paid.transactionId, refunded: 0, test: true, upsells: [] });

    // 4. The upsell: the saved payment method, a session of one offer, the buyer accepts it.
    const token = await client.POST("/api/v1/payment-tokens", { body: { provider: "vault_gateway_b", transactionId: paid.transactionId } });
    expect(token.data).toMatchObject({ success: true, provider: "vault_gateway_b", paymentMethodToken: expect.any(String) });
    const upsellOrderId = `${orderId}-up`;
    const session = await client.POST("/api/v1/upsell/sessions", {
      body: {
        orderId: upsellOrderId,
        originalOrderId: orderId,
        customerEmail: "ada@example.com",
        provider: "vault_gateway_b",
        paymentMethodToken: token.data!.paymentMethodToken,
        offers: [{ id: "care", name: "Care plan", price: 1500 }],
      },
      headers: { "idempotency-key": `upsell-${orderId}` },
    });
    expect(session.response.status, JSON.stringify(session.error)).toBe(200);
    // The answer is SPEC's union: a session, or "skip the upsell"; the type makes the caller tell them apart.
    const started = session.data!;
    if (!("sessionId" in started)) throw new Error(`no session: ${started.message}`);
    expect(started).toMatchObject({ success: true, sessionId: expect.any(String), upsellUrl: expect.any(String), totalOffers: 1 });
    // Accepting is the buyer's click on the upsell page (no /api/v1 verb: the merchant does not accept for the buyer).
    await buyer("/api/upsell/accept", { sessionId: started.sessionId, offerId: "care" });

    const withUpsell = await client.GET("/api/v1/orders/{orderId}", { params: { path: { orderId } } });
    expect(withUpsell.data!.upsells).toMatchObject([{ orderId: upsellOrderId, status: "paid", amount: 1500, currency: "USD" }]);

    // 5. The merchant refunds part of the order, then the upsell's charge in full.
    const refund = await client.POST("/api/v1/orders/{orderId}/refunds", {
      params: { path: { orderId } },
      body: { amount: 999, reason: "requested_by_customer", note: "one seat less" },
      headers: { "idempotency-key": `refund-${orderId}` },
    });
    expect(refund.response.status, JSON.stringify(refund.error)).toBe(200);
    const refunded = refund.data!.refund;
    expectTypeOf(refunded.status).toEqualTypeOf<"pending" | "succeeded" | "failed">();
    expect(refunded).toMatchObject({ orderId, amount: 999, currency: "USD", status: "succeeded", reason: "requested_by_customer" });

    const upsellRefund = await client.POST("/api/v1/orders/{orderId}/refunds", {
      params: { path: { orderId } },
      body: { reason: "other", charge: upsellOrderId },
      headers: { "idempotency-key": `refund-up-${orderId}` },
    });
    expect(upsellRefund.data?.refund).toMatchObject({ orderId: upsellOrderId, amount: 1500, status: "succeeded" });

    const after = await client.GET("/api/v1/orders/{orderId}", { params: { path: { orderId } } });
    expect(after.data).toMatchObject({ status: "partially_refunded", refunded: 999, upsells: [{ orderId: upsellOrderId, status: "refunded", refunded: 1500 }] });

    // 6. The flow's events, through the events API: newest first, all test mode, all under the id the
    // API answered, each with the checkout's metadata.
    const events = await client.GET("/api/v1/events", { params: { query: { type: ["checkout.completed", "order.confirmed", "upsell.accepted", "refund.succeeded"], limit: 100 } } });
    expect(events.response.status, JSON.stringify(events.error)).toBe(200);
    expect(events.data!.livemode).toBe(false);
    const mine = events.data!.data.filter((e) => e.data.orderId === orderId || e.data.originalOrderId === orderId || e.data.orderId === upsellOrderId);
    expect(mine.map((e) => e.type).sort()).toEqual(["checkout.completed", "order.confirmed", "refund.succeeded", "refund.succeeded", "upsell.accepted"]);
    for (const event of mine) expect(event.data, event.type).toMatchObject({ livemode: false, checkoutMetadata: { cart: "c-1" } });
    expect(mine.find((e) => e.type === "checkout.completed")!.data.checkoutId).toBe(checkout.id);
    const one = await client.GET("/api/v1/events/{id}", { params: { path: { id: mine[0]!.id } } });
    expect(one.data).toMatchObject({ id: mine[0]!.id, type: mine[0]!.type });
  });

  it("answers errors typed as the error body, and takes no call the schema does not describe", async () => {
    const stranger = createCheckoutClient({ baseUrl, apiKey: "sk_not_a_real_key" });
    const refused = await stranger.GET("/api/v1/orders/{orderId}", { params: { path: { orderId: "nope" } } });
    expect(refused.response.status).toBe(401);
    expect(refused.data).toBeUndefined();
    expectTypeOf(refused.error!.error).toEqualTypeOf<string>();
    expect(refused.error).toMatchObject({ error: "Invalid API key", code: "UNAUTHORIZED" });

    const client = createCheckoutClient({ baseUrl: `${baseUrl}/`, apiKey });
    const missing = await client.GET("/api/v1/orders/{orderId}", { params: { path: { orderId: "no-such-order" } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: "NOT_FOUND" });

    // Compile-time only (npm run typecheck): wrong bodies and unknown paths do not type-check.
    const typeChecks = (c: CheckoutClient) => {
      // @ts-expect-error amount is an integer of minor units, not a string
      void c.POST("/api/v1/checkouts", { body: { orderId: "o", amount: "49.99", currency: "USD", productName: "P" } });
      // @ts-expect-error a refund needs its reason
      void c.POST("/api/v1/orders/{orderId}/refunds", { params: { path: { orderId: "o" } }, body: { amount: 1 } });
      // @ts-expect-error the administration is not part of the merchant client
      void c.GET("/api/admin/orders");
    };
    expect(typeChecks).toBeTypeOf("function");
  });

  it("client/openapi.json and client/schema.ts match the service's document (else: npm run client:generate)", async () => {
    const doc = merchantDocument(json(await t.app.inject({ method: "GET", url: "/openapi.json" })));
    expect(Object.keys(doc.paths).every((path) => path.startsWith("/api/v1/"))).toBe(true);
    const stale = "stale: run `npm run client:generate` and commit client/ (docs/development.md)";
    expect(readFileSync(CLIENT_DOCUMENT, "utf8"), `client/openapi.json is ${stale}`).toBe(documentText(doc));
    expect(readFileSync(CLIENT_SCHEMA, "utf8"), `client/schema.ts is ${stale}`).toBe(await schemaText(doc));
  });
});
