// Issue 34 item 1, issue 36 item 10: an order carries its provider attempts (the cascade's declines
// visible to the merchant) and the approved attempt's card, brand and last four only; a refund nets
// into the card's rows of the approval analytics.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCall, registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { orderClaims, signToken } from "../../test/support/checkout.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { bearer, createApiKey } from "../../test/support/merchant.js";
import { address, card, customer, post } from "../../test/support/provider-payments.js";
import { approvalDailyStats, orders, providerSettings } from "../db/schema/index.js";

let t: TestApp;
let shop: Registered;
let rival: Registered;
let shopKey: string;
let rivalKey: string;
beforeAll(async () => {
  t = await buildTestApp();
  shop = await registerOwner(t);
  rival = await registerOwner(t);
  const now = new Date(t.clock.now());
  // Routed vault_gateway_a, then vault_gateway_b (the default rule's order).
  for (const provider of ["vault_gateway_a", "vault_gateway_b"]) await t.deps.database.db.insert(providerSettings).values({ brandId: shop.brandId, provider, enabled: true, publicValues: {}, updatedAt: now });
  shopKey = (await createApiKey(t, shop.session, { scopes: ["orders:read"] })).secret;
  rivalKey = (await createApiKey(t, rival.session, { scopes: ["orders:read"] })).secret;
});
afterAll(() => t.close());

const AMOUNT = 1000;
let sequence = 0;

/** Pays through POST /api/checkout/pay with `cardNumber` and completes: the order's merchant id and our id. */
async function paidThroughPay(cardNumber: string) {
  const claims = orderClaims({ brandId: shop.brandId, amount: AMOUNT, currency: "USD" });
  const orderId = claims.orderId as string;
  const init = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "vault_gateway_a" });
  expect(init.statusCode, init.body).toBe(200);
  const paid = await post(t, "/api/checkout/pay", { orderId, ...card(cardNumber), customer, billingAddress: address }, { remoteAddress: `10.36.10.${++sequence}` });
  expect(paid.statusCode, paid.body).toBe(200);
  const { provider, transactionId, providerOrderId } = paid.json();
  const done = await post(t, "/api/checkout/complete", { orderId, provider, transactionId, providerOrderId, customerEmail: customer.email, customerName: "Ada Lovelace", amount: AMOUNT, currency: "USD" });
  expect(done.statusCode, done.body).toBe(200);
  const [row] = await t.deps.database.db.select().from(orders).where(and(eq(orders.brandId, shop.brandId), eq(orders.orderId, orderId)));
  return { orderId, id: row!.id };
}

describe("the order's attempts and card", () => {
  let cascaded: { orderId: string; id: string };
  beforeAll(async () => {
    // 4000000000001018 soft-declines at vault_gateway_a only: the cascade approves at vault_gateway_b.
    cascaded = await paidThroughPay("4000000000001018");
  });

  it("the back office order lists both attempts in order and the approved card, brand and last four", async () => {
    const res = await adminCall(t, "GET", `/api/admin/orders/${cascaded.id}`, { session: shop.session });
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body.provider).toBe("vault_gateway_b");
    expect(body.attempts).toMatchObject([
      { provider: "vault_gateway_a", result: "declined", declineClass: "soft", routeRule: "default" },
      { provider: "vault_gateway_b", result: "approved", declineCode: null, declineClass: null, routeRule: "default" },
    ]);
    expect(typeof body.attempts[0].declineCode).toBe("string");
    expect(typeof body.attempts[0].routeReason).toBe("string");
    expect(body.attempts[0].at).toBeLessThanOrEqual(body.attempts[1].at);
    expect(body.card).toMatchObject({ brand: "visa", last4: "1018" });
    expect(Object.keys(body.card).sort()).toEqual(["binCountry", "brand", "last4"]);
    expect(res.body).not.toContain("4000000000001018");
    expect(res.body).not.toContain("400000");
  });

  it("the merchant API's order says the same, without the BIN", async () => {
    const res = await t.app.inject({ method: "GET", url: `/api/v1/orders/${cascaded.orderId}`, headers: bearer(shopKey) });
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body.attempts.map((a: { provider: string; result: string }) => [a.provider, a.result])).toEqual([
      ["vault_gateway_a", "declined"],
      ["vault_gateway_b", "approved"],
    ]);
    expect(body.card).toMatchObject({ brand: "visa", last4: "1018" });
    expect(res.body).not.toContain("400000");
  });

  it("an order paid through the old provider endpoints has no card and no attempts", async () => {
    const old = await completeCheckoutViaApi(t, { claims: { brandId: shop.brandId } });
    const [row] = await t.deps.database.db.select().from(orders).where(and(eq(orders.brandId, shop.brandId), eq(orders.orderId, old.orderId as string)));
    const admin = json(await adminCall(t, "GET", `/api/admin/orders/${row!.id}`, { session: shop.session }));
    expect(admin).toMatchObject({ attempts: [], card: null });
    const api = await t.app.inject({ method: "GET", url: `/api/v1/orders/${old.orderId}`, headers: bearer(shopKey) });
    expect(api.statusCode, api.body).toBe(200);
    expect(json(api)).toMatchObject({ attempts: [], card: null });
  });

  it("another brand's key or session gets 404", async () => {
    const api = await t.app.inject({ method: "GET", url: `/api/v1/orders/${cascaded.orderId}`, headers: bearer(rivalKey) });
    expect(api.statusCode).toBe(404);
    expect(json(api)).toMatchObject({ code: "NOT_FOUND" });
    const admin = await adminCall(t, "GET", `/api/admin/orders/${cascaded.id}`, { session: rival.session });
    expect(admin.statusCode).toBe(404);
    expect(json(admin)).toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("a refund of a pay-path charge", () => {
  it("nets into the approved card's brand and BIN-country rows of the charge's day", async () => {
    const paid = await paidThroughPay("4242424242424242");
    const db = t.deps.database.db;
    const refundedOf = async (dimension: "card_brand" | "bin_country") =>
      (await db.select().from(approvalDailyStats).where(and(eq(approvalDailyStats.brandId, shop.brandId), eq(approvalDailyStats.dimension, dimension)))).reduce<Record<string, number>>((sum, row) => {
        sum[row.value] = (sum[row.value] ?? 0) + Number(row.refundedAmount);
        return sum;
      }, {});
    const before = await refundedOf("card_brand");
    const res = await adminCall(t, "POST", `/api/admin/orders/${paid.id}/refunds`, { session: shop.session, body: { amount: 300, reason: "other" } });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).refund).toMatchObject({ status: "succeeded", amount: 300 });
    const after = await refundedOf("card_brand");
    expect((after.visa ?? 0) - (before.visa ?? 0)).toBe(300);
    expect(after[""] ?? 0).toBe(before[""] ?? 0);
    const card = json(await adminCall(t, "GET", `/api/admin/orders/${paid.id}`, { session: shop.session })).card;
    const countries = await refundedOf("bin_country");
    expect(countries[card.binCountry ?? ""] ?? 0).toBeGreaterThanOrEqual(300);
  });
});
