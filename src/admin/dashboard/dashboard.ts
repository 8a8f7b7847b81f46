import { and, asc, eq, gte, sql } from "drizzle-orm";
import type { Ctx } from "../../ctx.js";
import { orders } from "../../db/schema/index.js";
import { assertRole, brandOfScope } from "../../http/auth.js";
import { readMode } from "../../payments/mode.js";
import { offerNamesOfBrand, offerStatsOfBrand } from "../../upsell/store.js";
import type { DashboardQuery, DashboardReply } from "./schemas.js";

const DAY_MS = 86_400_000;

/** Revenue is what was kept: amounts net of refunds, leaving out payments a provider reported failed or refunded. */
const paid = sql`coalesce(${orders.paymentStatus}, 'succeeded') = 'succeeded'`;
const revenue = sql<string>`coalesce(sum(case when ${paid} then ${orders.amountCents} - ${orders.refundedCents} else 0 end), 0)`;

/**
 * GET /api/admin/dashboard: the session brand's orders and revenue per currency over the last
 * `days` days (UTC), per day, and the upsell take rate per offer from the running counters.
 */
export async function getDashboard({ ctx, input }: { ctx: Ctx; input: DashboardQuery }): Promise<DashboardReply> {
  const scope = assertRole(ctx, "member");
  const brandId = await brandOfScope(ctx.db, scope);
  const now = ctx.clock.now();
  const from = Math.floor(now / DAY_MS) * DAY_MS - (input.days - 1) * DAY_MS;
  // One mode (CONTRACT §39): tests would inflate a live shop's figures. `test` is the parameter's older name.
  const livemode = await readMode(ctx, brandId, input.livemode ?? (input.test === undefined ? undefined : !input.test));
  const inWindow = and(eq(orders.brandId, brandId), eq(orders.livemode, livemode), gte(orders.createdAt, new Date(from)));

  // One pass over the window's orders, per day and currency; the totals are summed from it.
  const day = sql<string>`to_char(${orders.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const rows = await ctx.db
    .select({
      date: day,
      currency: orders.currency,
      orders: sql<string>`count(*)`,
      upsellOrders: sql<string>`count(*) filter (where ${orders.kind} = 'upsell')`,
      revenueCents: revenue,
    })
    .from(orders)
    .where(inWindow)
    .groupBy(day, orders.currency)
    .orderBy(asc(day), asc(orders.currency));
  const daily = rows.map((r) => ({ date: r.date, currency: r.currency, orders: Number(r.orders), upsellOrders: Number(r.upsellOrders), revenueCents: Number(r.revenueCents) }));
  const byCurrency = new Map<string, DashboardReply["totals"][number]>();
  for (const d of daily) {
    const t = byCurrency.get(d.currency) ?? { currency: d.currency, orders: 0, checkoutOrders: 0, upsellOrders: 0, revenueCents: 0 };
    t.orders += d.orders;
    t.upsellOrders += d.upsellOrders;
    t.checkoutOrders += d.orders - d.upsellOrders;
    t.revenueCents += d.revenueCents;
    byCurrency.set(d.currency, t);
  }
  const totals = [...byCurrency.values()].sort((a, b) => b.orders - a.orders || a.currency.localeCompare(b.currency));

  const offers = await offerStatsOfBrand(ctx.db, brandId, { livemode, limit: 200 });
  const names = await offerNamesOfBrand(ctx.db, brandId, [...new Set(offers.map((o) => o.offerId))]);

  return {
    brandId,
    livemode,
    from,
    to: now,
    totals,
    daily: daily.map((d) => ({ date: d.date, currency: d.currency, orders: d.orders, revenueCents: d.revenueCents })),
    offers: offers.map((o) => ({
      offerId: o.offerId,
      offerName: names.get(o.offerId) ?? null,
      currency: o.currency,
      shown: o.shown,
      accepted: o.accepted,
      declined: o.declined,
      takeRate: o.shown > 0 ? Math.round((o.accepted / o.shown) * 1000) / 10 : 0,
      revenueCents: o.revenueCents,
    })),
  };
}
