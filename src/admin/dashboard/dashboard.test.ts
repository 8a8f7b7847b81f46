// Dashboard figures (not in SPEC; docs/admin.md): orders and revenue of the session's brand per
// currency and day within a window moved by the test clock, upsell take rate per offer, tenancy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { addUser, adminCall, registerOwner, type Registered } from "../../../test/support/admin.js";
import { post } from "../../../test/support/checkout.js";
import { completeCheckoutViaApi, createUpsellSession } from "../../../test/support/completed-checkout.js";
import { asc, eq } from "drizzle-orm";
import { AMOUNT } from "../../../test/support/provider-payments.js";
import { orders } from "../../db/schema/index.js";

const DAY = 86_400_000;
let t: TestApp;
let first: Registered; // adopts the default brand: tokens without brandId are its orders (CONTRACT §27)
let second: Registered;
const start = Date.UTC(2026, 10, 1, 9, 0, 0);

beforeAll(async () => {
  t = await buildTestApp();
  t.clock.set(start);
  // 1 November: one checkout. 11 November: two checkouts, one of them with an upsell flow.
  await completeCheckoutViaApi(t);
  t.clock.advance(10 * DAY);
  await completeCheckoutViaApi(t);
  const done = await completeCheckoutViaApi(t);
  const { sessionId } = await createUpsellSession(t, done, [
    { id: "filters", name: "Filters", price: 700 },
    { id: "mug", name: "Mug", price: 1200 },
  ]);
  expect((await post(t, "/api/upsell/accept", { sessionId, offerId: "filters" })).statusCode).toBe(200);
  expect((await post(t, "/api/upsell/decline", { sessionId, offerId: "mug" })).statusCode).toBe(200);
  // Registered now: sessions expire when the clock moves days.
  first = await registerOwner(t, "Dash Org");
  second = await registerOwner(t, "Quiet Org");
});
afterAll(() => t.close());

// The orders above are paid in demo mode: test money (test=true is the older name of livemode=false).
const dashboard = (session: string | undefined, query = "?test=true") => adminCall(t, "GET", `/api/admin/dashboard${query}`, { session });

describe("GET /api/admin/dashboard", () => {
  it("counts the brand's orders and revenue per currency and per day over the last 30 days", async () => {
    const res = await dashboard(first.session);
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body.brandId).toBe(first.brandId);
    expect(body.to).toBe(t.clock.now());
    expect(body.from).toBe(Date.UTC(2026, 9, 13));
    expect(body.totals).toEqual([{ currency: "USD", orders: 4, checkoutOrders: 3, upsellOrders: 1, revenueCents: 3 * AMOUNT + 700 }]);
    expect(body.daily).toEqual([
      { date: "2026-11-01", currency: "USD", orders: 1, revenueCents: AMOUNT },
      { date: "2026-11-11", currency: "USD", orders: 3, revenueCents: 2 * AMOUNT + 700 },
    ]);
  });

  it("answers the upsell take rate per offer, with the offer's name (issue 36)", async () => {
    const body = json(await dashboard(first.session));
    expect(body.offers).toEqual(
      expect.arrayContaining([
        { offerId: "filters", offerName: "Filters", currency: "USD", shown: 1, accepted: 1, declined: 0, takeRate: 100, revenueCents: 700 },
        { offerId: "mug", offerName: "Mug", currency: "USD", shown: 1, accepted: 0, declined: 1, takeRate: 0, revenueCents: 0 },
      ]),
    );
    expect(body.offers).toHaveLength(2);
  });

  it("narrows the window with days: the last 5 days hold the 11 November orders only", async () => {
    const body = json(await dashboard(first.session, "?test=true&days=5"));
    expect(body.from).toBe(Date.UTC(2026, 10, 7));
    expect(body.totals).toEqual([{ currency: "USD", orders: 3, checkoutOrders: 2, upsellOrders: 1, revenueCents: 2 * AMOUNT + 700 }]);
    expect(body.daily.map((d: { date: string }) => d.date)).toEqual(["2026-11-11"]);
  });

  it("shows one mode, the brand's (test without real credentials) unless asked, and revenue net of refunds", async () => {
    // CONTRACT §39: the demo-paid orders are test; a brand without real credentials shows test by default.
    expect(json(await dashboard(first.session, "?livemode=true"))).toMatchObject({ livemode: true, totals: [], daily: [] });
    expect(json(await dashboard(first.session, "?test=false")).totals).toEqual([]);
    const [oldest] = await t.deps.database.db.select().from(orders).where(eq(orders.brandId, first.brandId)).orderBy(asc(orders.createdAt)).limit(1);
    const refund = await adminCall(t, "POST", `/api/admin/orders/${oldest!.id}/refunds`, { session: first.session, body: { amount: 250, reason: "other" } });
    expect(refund.statusCode, refund.body).toBe(200);
    const byDefault = json(await dashboard(first.session, ""));
    expect(byDefault.livemode).toBe(false);
    expect(byDefault.totals).toEqual([{ currency: "USD", orders: 4, checkoutOrders: 3, upsellOrders: 1, revenueCents: 3 * AMOUNT + 700 - 250 }]);
    expect(json(await dashboard(first.session, "?livemode=false")).totals).toEqual(byDefault.totals);
  });

  it("shows a brand its own figures only", async () => {
    const body = json(await dashboard(second.session));
    expect(body.brandId).toBe(second.brandId);
    expect(body).toMatchObject({ totals: [], daily: [], offers: [] });
  });

  it("is open to a member", async () => {
    const member = await addUser(t, first.session, "member", [first.brandId]);
    const res = await dashboard(member.session);
    expect(res.statusCode).toBe(200);
    expect(json(res).totals[0].orders).toBe(4);
  });

  it("answers 401 without a session and 400 for a window outside 1 to 366 days", async () => {
    expect((await dashboard(undefined)).statusCode).toBe(401);
    for (const days of ["0", "367", "abc"]) {
      const res = await dashboard(first.session, `?days=${days}`);
      expect(res.statusCode).toBe(400);
      expect(json(res).error).toMatch(/days/);
    }
  });
});
