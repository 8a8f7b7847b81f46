// Issue 18 item 6: GET /api/checkout/confirmation, the success page's read. Order ids are guessable,
// so it answers only with the buyer's proof (the checkout's transactionId or the upsell session id):
// a wrong proof is 404, an orderId alone 400, another brand's order with the same orderId is never
// reached. The answer: the order reference, each charge in its currency, and whether a receipt comes.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { createBrand, orderClaims, post, signToken } from "../support/checkout.js";
import { completeCheckoutViaApi, createUpsellSession } from "../support/completed-checkout.js";
import { brands } from "../../src/db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const confirmation = (query: Record<string, string>) => t.app.inject({ method: "GET", url: `/api/checkout/confirmation?${new URLSearchParams(query)}` });
const lineItems = [
  { id: "lamp", name: "Lamp", quantity: 2, unitPrice: 300 },
  { id: "bulb", name: "Bulb", quantity: 1, unitPrice: 400 },
];

describe("GET /api/checkout/confirmation", () => {
  it("with the checkout's transactionId: the order, its items and amount, the receipt promise with the address masked; nothing else personal", async () => {
    const paid = await completeCheckoutViaApi(t, { claims: { lineItems } });
    const res = await confirmation({ orderId: paid.orderId, transactionId: paid.transactionId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(json(res)).toEqual({
      success: true,
      orderId: paid.orderId,
      brandName: expect.any(String),
      receiptEmail: true,
      receiptTo: "a•••@example.com",
      charges: [{ kind: "order", items: [{ name: "Lamp", quantity: 2, amount: 600 }, { name: "Bulb", quantity: 1, amount: 400 }], amount: 1000, currency: "USD" }],
      totals: [{ amount: 1000, currency: "USD" }],
    });
    expect(res.body).not.toMatch(/ada@example\.com|Lovelace|4242|paymentMethodToken/);
  });

  it("a wrong or missing proof answers nothing", async () => {
    const paid = await completeCheckoutViaApi(t);
    const wrong = await confirmation({ orderId: paid.orderId, transactionId: `${paid.transactionId}x` });
    expect(wrong.statusCode).toBe(404);
    expect(json(wrong)).toMatchObject({ error: "Order not found", code: "NOT_FOUND" });
    expect((await confirmation({ orderId: paid.orderId, sessionId: "ups_00000000000000000000000000000000" })).statusCode).toBe(404);
    const bare = await confirmation({ orderId: paid.orderId });
    expect(bare.statusCode).toBe(400);
    expect(json(bare)).toMatchObject({ code: "VALIDATION_ERROR", details: "transactionId" });
    // Another order's transaction id is no proof for this one.
    const other = await completeCheckoutViaApi(t);
    expect((await confirmation({ orderId: paid.orderId, transactionId: other.transactionId })).statusCode).toBe(404);
  });

  it("with the upsell session id: the original order and each accepted upsell; a session of another order is 404", async () => {
    const paid = await completeCheckoutViaApi(t);
    const { sessionId } = await createUpsellSession(t, paid, [
      { id: "a", name: "Extra lamp", price: 1500 },
      { id: "b", name: "Gift wrap", price: 250 },
    ]);
    expect((await post(t, "/api/upsell/accept", { sessionId, offerId: "a" })).statusCode).toBe(200);
    // Upsells are listed in the order they were charged (the test clock stands still otherwise).
    t.clock.advance(1000);
    expect((await post(t, "/api/upsell/accept", { sessionId, offerId: "b" })).statusCode).toBe(200);

    for (const orderId of [paid.orderId, `${paid.orderId}-up`]) {
      const res = await confirmation({ orderId, sessionId });
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res)).toMatchObject({
        orderId: paid.orderId,
        charges: [
          { kind: "order", amount: 1000, currency: "USD" },
          { kind: "upsell", items: [{ name: "Extra lamp", quantity: 1, amount: 1500 }], amount: 1500, currency: "USD" },
          { kind: "upsell", items: [{ name: "Gift wrap", quantity: 1, amount: 250 }], amount: 250, currency: "USD" },
        ],
        totals: [{ amount: 2750, currency: "USD" }],
      });
    }
    // The transactionId proof shows the same charges.
    expect(json(await confirmation({ orderId: paid.orderId, transactionId: paid.transactionId })).charges).toHaveLength(3);
    // The session proves only its own order.
    const other = await completeCheckoutViaApi(t);
    expect((await confirmation({ orderId: other.orderId, sessionId })).statusCode).toBe(404);
  });

  it("another brand: its own order under the same orderId, its name, and no receipt promise when its receipts are off", async () => {
    const first = await completeCheckoutViaApi(t);
    const { brandId } = await createBrand(t);
    await t.deps.database.db.update(brands).set({ name: "Other shop", receiptsEnabled: false }).where(eq(brands.id, brandId));
    const second = await completeCheckoutViaApi(t, { claims: { orderId: first.orderId, brandId, productName: "Their product" } });

    const mine = json(await confirmation({ orderId: first.orderId, transactionId: first.transactionId }));
    expect(mine).toMatchObject({ receiptEmail: true, charges: [{ items: [{ name: "Test product" }] }] });
    expect(mine.brandName).not.toBe("Other shop");
    const theirs = json(await confirmation({ orderId: first.orderId, transactionId: second.transactionId }));
    expect(theirs).toMatchObject({ brandName: "Other shop", receiptEmail: false, charges: [{ items: [{ name: "Their product", quantity: 1, amount: 1000 }] }] });
    // No receipt, no address (not even masked).
    expect(theirs).not.toHaveProperty("receiptTo");
  });

  it("POST with the checkout token (issue 36: back on the checkout page after paying): that order's confirmation; unpaid 404, forged 401", async () => {
    const claims = orderClaims({ amount: 1000, currency: "USD", lineItems });
    const token = await signToken(t, claims);
    const byToken = (body: unknown) => t.app.inject({ method: "POST", url: "/api/checkout/confirmation", payload: body as Record<string, unknown> });
    const before = await byToken({ token });
    expect(before.statusCode).toBe(404);
    expect(json(before)).toMatchObject({ error: "Order not found", code: "NOT_FOUND" });

    const paid = await completeCheckoutViaApi(t, { claims });
    const res = await byToken({ token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(json(res)).toMatchObject({ orderId: paid.orderId, charges: [{ kind: "order", amount: 1000, currency: "USD" }], totals: [{ amount: 1000, currency: "USD" }] });

    const forged = await byToken({ token: `${token}x` });
    expect(forged.statusCode).toBe(401);
    expect(json(forged)).toMatchObject({ code: "INVALID_TOKEN" });
    const empty = await byToken({});
    expect(empty.statusCode).toBe(400);
    expect(json(empty)).toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
