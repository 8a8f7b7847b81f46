// SPEC "Upsell" create-session with CONTRACT §8 and §20: eligibility through the targeting rules,
// skipUpsell, the session's lifetime and URL, the token bound to its order, and the guard rails.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { post } from "../../test/support/checkout.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { AMOUNT } from "../../test/support/provider-payments.js";
import { upsellOfferStats, upsellSessions } from "../db/schema/index.js";
import { abandonReservation, expireReservation } from "../../test/support/idempotency.js";
import { UPSELL_WINDOW_MS } from "./create-session.js";
import { offerStatsOfBrand } from "./store.js";
import type { PaymentProviderType } from "../providers/types.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const completedCheckout = (provider: PaymentProviderType = "vault_gateway_b", claims: Record<string, unknown> = {}) => completeCheckoutViaApi(t, { provider, claims });

const offer = (id: string, extra: Record<string, unknown> = {}) => ({ id, name: `Offer ${id}`, price: 1500, ...extra });

function sessionBody(original: { orderId: string; provider: string; paymentMethodToken?: string }, extra: Record<string, unknown> = {}) {
  return {
    orderId: `${original.orderId}-up`,
    originalOrderId: original.orderId,
    customerEmail: "ada@example.com",
    paymentMethodToken: original.paymentMethodToken,
    provider: original.provider,
    offers: [offer("a"), offer("b")],
    ...extra,
  };
}
const create = (body: unknown) => post(t, "/api/upsell/create-session", body);
const sessionsFor = (originalOrderId: string) => t.deps.database.db.select().from(upsellSessions).where(eq(upsellSessions.originalOrderId, originalOrderId));

describe("create-session", () => {
  it("creates an active session: id with 128 random bits, absolute upsellUrl, expiresAt = now + TTL, totalOffers", async () => {
    const original = await completedCheckout();
    const res = await create(sessionBody(original, { metadata: { campaign: "x" }, themeId: "dark" }));
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(Object.keys(body).sort()).toEqual(["expiresAt", "sessionId", "success", "totalOffers", "upsellUrl"]);
    expect(body.sessionId).toMatch(/^ups_[A-Za-z0-9_-]{22}$/);
    expect(body.upsellUrl).toBe(`http://checkout.test/upsell/${body.sessionId}`);
    expect(body.expiresAt).toBe(t.clock.now() + 1800 * 1000);
    expect(body.totalOffers).toBe(2);
    const [row] = await sessionsFor(original.orderId);
    expect(row).toMatchObject({ id: body.sessionId, status: "active", currency: "USD", provider: "vault_gateway_b", metadata: { campaign: "x" }, themeId: "dark", paymentMethodToken: original.paymentMethodToken });
    expect(row!.flow.map((o) => [o.id, o.priceCents])).toEqual([["a", 1500], ["b", 1500]]);
    const stats = await offerStatsOfBrand(t.deps.database.db, row!.brandId, { livemode: false });
    expect(stats.find((s) => s.offerId === "a")!.shown).toBeGreaterThanOrEqual(1);
  });

  it("an Idempotency-Key names one session: a retry after the dead request's reservation was taken over answers it, also past the 60 minutes; other offers are 422", async () => {
    const original = await completedCheckout();
    const body = sessionBody(original);
    const headers = { "idempotency-key": `session-${original.orderId}` };
    const first = await post(t, "/api/upsell/create-session", body, headers);
    expect(first.statusCode, first.body).toBe(200);
    await abandonReservation(t, headers["idempotency-key"]);
    const retry = await post(t, "/api/upsell/create-session", body, headers);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(json(retry)).toEqual(json(first));
    await expireReservation(t, headers["idempotency-key"]);
    t.clock.advance(UPSELL_WINDOW_MS + 1);
    const late = await post(t, "/api/upsell/create-session", body, headers);
    expect(late.statusCode, late.body).toBe(200); // the session it made, not "too late to make one"
    expect(json(late)).toEqual(json(first));
    await abandonReservation(t, headers["idempotency-key"]);
    const other = await post(t, "/api/upsell/create-session", { ...body, offers: [offer("a", { price: 1 })] }, headers);
    expect(other.statusCode).toBe(422);
    expect(await sessionsFor(original.orderId)).toHaveLength(1);
  });

  it("counts every session of a popular offer once, over its counter shards, concurrently", async () => {
    const original = await completedCheckout();
    const offerId = `popular-${Date.now()}`;
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => create(sessionBody(original, { orderId: `${original.orderId}-pop-${i}`, offers: [offer(offerId), offer("b")] }))),
    );
    expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 200));
    const [row] = await sessionsFor(original.orderId);
    expect(await offerStatsOfBrand(t.deps.database.db, row!.brandId, { offerId, livemode: false })).toEqual([{ offerId, currency: "USD", shown: 40, accepted: 0, declined: 0, revenueCents: 0 }]);
    const shards = await t.deps.database.db.select().from(upsellOfferStats).where(eq(upsellOfferStats.offerId, offerId));
    // Spread, not one hot row: 40 random picks of 16 shards all landing on one is a 1-in-16^39 event.
    expect(shards.length).toBeGreaterThan(1);
  });

  it("looks the token up from the original order when it is omitted", async () => {
    const original = await completedCheckout();
    const res = await create(sessionBody({ ...original, paymentMethodToken: undefined }));
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await sessionsFor(original.orderId);
    expect(row!.paymentMethodToken).toBe(original.paymentMethodToken);
  });

  it("without the token, needs the original order's customer email (an order id alone charges nothing)", async () => {
    const original = await completedCheckout();
    const stranger = await create(sessionBody({ ...original, paymentMethodToken: undefined }, { customerEmail: "someone@else.example" }));
    expect(stranger.statusCode).toBe(404);
    expect(json(stranger)).toMatchObject({ error: "Original order not found" });
    // The 404 names the e-mail rule, and reads the same for an order that does not exist at all.
    expect(json(stranger).details).toContain("customerEmail must be the e-mail the original order was paid with");
    const unknown = await create(sessionBody({ ...original, orderId: "no-such-order", paymentMethodToken: undefined }, { customerEmail: "someone@else.example" }));
    const { error, code, details } = json(stranger);
    expect(json(unknown)).toMatchObject({ error, code, details });
    expect(await sessionsFor(original.orderId)).toHaveLength(0);
    const sameCustomer = await create(sessionBody({ ...original, paymentMethodToken: undefined }, { customerEmail: "  ADA@example.com " }));
    expect(sameCustomer.statusCode, sameCustomer.body).toBe(200);
  });

  it("answers skipUpsell with a message when no offer is eligible, and stores nothing", async () => {
    const original = await completedCheckout();
    const res = await create(sessionBody(original, { cartTotal: 100, offers: [offer("a", { showIf: { minCartValue: 5000 } })] }));
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true, skipUpsell: true, message: expect.any(String) });
    expect(await sessionsFor(original.orderId)).toHaveLength(0);
  });

  describe("targeting through the API", () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>, boolean][] = [
      ["minCartValue met", { minCartValue: 5000 }, { cartTotal: 5000 }, true],
      ["minCartValue missed", { minCartValue: 5000 }, { cartTotal: 4999 }, false],
      ["minCartValue against the original order's amount when cartTotal is omitted", { minCartValue: AMOUNT }, {}, true],
      ["productIds: any one purchased", { productIds: ["kit", "mug"] }, { purchasedProductIds: ["mug"] }, true],
      ["productIds: none purchased", { productIds: ["kit"] }, { purchasedProductIds: ["mug"] }, false],
      ["excludeProductIds: any one purchased hides", { excludeProductIds: ["refill", "x"] }, { purchasedProductIds: ["x"] }, false],
      ["excludeProductIds: none purchased", { excludeProductIds: ["refill"] }, { purchasedProductIds: ["mug"] }, true],
      ["combined, all hold", { minCartValue: 100, productIds: ["kit"], excludeProductIds: ["refill"] }, { cartTotal: 100, purchasedProductIds: ["kit"] }, true],
      ["combined, one fails", { minCartValue: 100, productIds: ["kit"], excludeProductIds: ["refill"] }, { cartTotal: 100, purchasedProductIds: ["kit", "refill"] }, false],
    ];
    it.each(cases)("%s", async (_name, showIf, request, eligible) => {
      const original = await completedCheckout();
      const res = await create(sessionBody(original, { offers: [offer("t", { showIf }), offer("always")], ...request }));
      expect(res.statusCode, res.body).toBe(200);
      expect(json(res).totalOffers).toBe(eligible ? 2 : 1);
      const [row] = await sessionsFor(original.orderId);
      expect(row!.flow.some((o) => o.id === "t")).toBe(eligible);
    });

    it("a downsell is not counted in totalOffers and disappears with its ineligible offer", async () => {
      const original = await completedCheckout();
      const res = await create(
        sessionBody(original, {
          cartTotal: 10,
          offers: [offer("a", { downsell: offer("a-down", { price: 500 }) }), offer("b", { showIf: { minCartValue: 5000 }, downsell: offer("b-down") })],
        }),
      );
      expect(json(res).totalOffers).toBe(1);
      const [row] = await sessionsFor(original.orderId);
      expect(row!.flow.map((o) => [o.id, o.downsellOf ?? null])).toEqual([["a", null], ["a-down", "a"]]);
    });
  });

  describe("validation", () => {
    it.each([
      ["orderId", { orderId: undefined }],
      ["originalOrderId", { originalOrderId: undefined }],
      ["customerEmail", { customerEmail: undefined }],
      ["provider", { provider: "nope" }],
      ["offers", { offers: [] }],
      ["offers.1.price", { offers: [offer("a"), offer("b", { price: "10" })] }],
      ["offers.0.name", { offers: [{ id: "a", price: 100 }] }],
      ["offers.0.externalPageUrl", { offers: [offer("a", { externalPageUrl: "javascript:alert(1)" })] }],
      ["currency", { currency: "dollars" }],
    ])("400 VALIDATION_ERROR naming %s", async (field, change) => {
      const res = await create({ ...sessionBody({ orderId: "o1", provider: "vault_gateway_b", paymentMethodToken: "x" }), ...change });
      expect(res.statusCode).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: field });
    });

    it("refuses a repeated offer id, downsells included", async () => {
      const original = await completedCheckout();
      const res = await create(sessionBody(original, { offers: [offer("a"), offer("b", { downsell: offer("a") })] }));
      expect(res.statusCode).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "offers.1.downsell.id" });
    });

    it("an unknown original order without a token is 404", async () => {
      const res = await create(sessionBody({ orderId: "no-such-order", provider: "vault_gateway_b" }));
      expect(res.statusCode).toBe(404);
      expect(json(res)).toMatchObject({ code: "NOT_FOUND", error: "Original order not found" });
    });
  });

  describe("CONTRACT §8: the token is bound to originalOrderId", () => {
    it("refuses another order's token with 400 and creates nothing", async () => {
      const mine = await completedCheckout();
      const other = await completedCheckout();
      const res = await create(sessionBody({ ...mine, paymentMethodToken: other.paymentMethodToken }));
      expect(res.statusCode).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "paymentMethodToken" });
      expect(await sessionsFor(mine.orderId)).toHaveLength(0);
    });

    it("refuses a made-up token", async () => {
      const mine = await completedCheckout();
      const res = await create(sessionBody({ ...mine, paymentMethodToken: "vgb_cv_x|vgb_txn_y" }));
      expect(res.statusCode).toBe(400);
      expect(json(res).details).toBe("paymentMethodToken");
    });

    it("refuses another provider than the original order's", async () => {
      const mine = await completedCheckout();
      const res = await create(sessionBody({ ...mine, provider: "vault_gateway_a" }));
      expect(res.statusCode).toBe(400);
      expect(json(res).details).toBe("provider");
    });
  });

  describe("CONTRACT §20 guard rails", () => {
    it("accepted up to 60 minutes after the original order, refused after", async () => {
      const early = await completedCheckout();
      const late = await completedCheckout();
      t.clock.advance(60 * 60 * 1000);
      expect((await create(sessionBody(early))).statusCode).toBe(200);
      t.clock.advance(1);
      const res = await create(sessionBody(late));
      expect(res.statusCode).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "originalOrderId" });
      expect(await sessionsFor(late.orderId)).toHaveLength(0);
    });

    it("only in the original order's currency (omitted: the original's)", async () => {
      const original = await completedCheckout();
      const res = await create(sessionBody(original, { currency: "EUR" }));
      expect(res.statusCode).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "currency" });
      expect((await create(sessionBody(original, { currency: "usd" }))).statusCode).toBe(200);
      expect((await create(sessionBody(original, { currency: undefined }))).statusCode).toBe(200);
    });

    it("at most 5 offers, downsells not counted", async () => {
      const original = await completedCheckout();
      const five = ["1", "2", "3", "4", "5"].map((id) => offer(id, { downsell: offer(`${id}-down`) }));
      const ok = await create(sessionBody(original, { offers: five }));
      expect(ok.statusCode, ok.body).toBe(200);
      expect(json(ok).totalOffers).toBe(5);
      const six = await create(sessionBody(original, { offers: [...five, offer("6")] }));
      expect(six.statusCode).toBe(400);
      expect(json(six)).toMatchObject({ code: "VALIDATION_ERROR", details: "offers" });
    });
  });
});
