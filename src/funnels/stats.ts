import type { Ctx } from "../ctx.js";
import { assertRole, brandOfScope } from "../http/auth.js";
import { readMode } from "../payments/mode.js";
import { dayOfMs, dayParam } from "../lib/dates.js";
import { validationError } from "../lib/errors.js";
import { funnelNotFound } from "../upsell/errors.js";
import { findFunnelOfBrand } from "../upsell/funnel/store.js";
import type { FunnelIdParams, FunnelStatsReply, StatsQuery, VariantStats } from "./schemas.js";
import { funnelStatsRows } from "./store.js";
import { splitTestVerdicts } from "./winner.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The default period: the last 30 days, today included. */
const DEFAULT_DAYS = 30;
/** A longer period is refused: the counters are per day, and a year is plenty for a funnel's page. */
const MAX_DAYS = 366;

const ratio = (a: number, b: number) => (b === 0 ? 0 : a / b);

/**
 * `GET /api/admin/funnels/<id>/stats?from=&to=&currency=` (any member): the day counters summed over
 * the period. Money members are of one currency: `currency`, else the one with the most sessions.
 * Counts (impressions, accepts, declines) are over that currency's sessions too, so every ratio is
 * of one population. Variants of the current version's steps are listed even with no counts yet.
 */
export async function funnelStats({ ctx, input }: { ctx: Ctx; input: FunnelIdParams & { query: StatsQuery } }): Promise<FunnelStatsReply> {
  const scope = assertRole(ctx, "member");
  const brandId = await brandOfScope(ctx.db, scope);
  const funnel = await findFunnelOfBrand(ctx.db, brandId, input.id);
  if (!funnel) throw funnelNotFound();
  // Each parameter is checked on its own first, so a day that does not exist is named as such.
  const now = ctx.clock.now();
  const toMs = input.query.to !== undefined ? dayParam(input.query.to, "to") : now - (now % DAY_MS);
  const fromMs = input.query.from !== undefined ? dayParam(input.query.from, "from") : Math.max(0, toMs - (DEFAULT_DAYS - 1) * DAY_MS);
  const [from, to] = [dayOfMs(fromMs), dayOfMs(toMs)];
  const span = (toMs - fromMs) / DAY_MS;
  if (span < 0) throw validationError("Invalid request: from must be a day on or before to", "from");
  if (span >= MAX_DAYS) throw validationError(`Invalid request: at most ${MAX_DAYS} days at a time`, "from");

  // One mode (CONTRACT §39): the counters keep test and live sessions apart.
  const livemode = await readMode(ctx, brandId, input.query.livemode);
  const rows = await funnelStatsRows(ctx.db, funnel.id, from, to, livemode);
  const sessionsBy = new Map<string, number>();
  for (const row of rows) if (row.stepIndex === -1) sessionsBy.set(row.currency, (sessionsBy.get(row.currency) ?? 0) + row.sessions);
  const currency = input.query.currency ?? [...sessionsBy.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null;
  const mine = rows.filter((row) => row.currency === currency);
  const total = mine.find((row) => row.stepIndex === -1);

  // Steps and variants: the current version's, plus any with counts from earlier versions.
  const keys = new Map<number, string[]>();
  funnel.steps.forEach((step, index) => keys.set(index, step.variants.map((v) => v.id)));
  for (const row of mine) {
    if (row.stepIndex < 0) continue;
    const ids = keys.get(row.stepIndex) ?? [];
    if (!ids.includes(row.variantId)) ids.push(row.variantId);
    keys.set(row.stepIndex, ids);
  }
  let gross = 0;
  let refunded = 0;
  const steps = [...keys.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([stepIndex, ids]) => {
      const counts = ids.map((variantId) => {
        const row = mine.find((r) => r.stepIndex === stepIndex && r.variantId === variantId);
        return { variantId, impressions: row?.impressions ?? 0, accepts: row?.accepts ?? 0, declines: row?.declines ?? 0, downsellImpressions: row?.downsellImpressions ?? 0, downsellAccepts: row?.downsellAccepts ?? 0, revenueCents: row?.revenueCents ?? 0, refundedCents: row?.refundedCents ?? 0 };
      });
      const verdicts = splitTestVerdicts(counts, funnel.minSamplePerVariant);
      const variants = counts.map((c, i): VariantStats => {
        gross += c.revenueCents;
        refunded += c.refundedCents;
        const net = c.revenueCents - c.refundedCents;
        return {
          variantId: c.variantId,
          impressions: c.impressions,
          accepts: c.accepts,
          declines: c.declines,
          downsellImpressions: c.downsellImpressions,
          downsellAccepts: c.downsellAccepts,
          takeRate: ratio(c.accepts, c.impressions),
          grossRevenue: c.revenueCents,
          refunded: c.refundedCents,
          netRevenue: net,
          revenuePerImpression: ratio(net, c.impressions),
          averageUpsellValue: ratio(c.revenueCents, c.accepts + c.downsellAccepts),
          probabilityBestTakeRate: verdicts[i]!.probabilityBestTakeRate,
          probabilityBestRevenue: verdicts[i]!.probabilityBestRevenue,
          winner: verdicts[i]!.winner,
        };
      });
      return { stepIndex, variants };
    });
  const sessions = total?.sessions ?? 0;
  return {
    funnelId: funnel.id,
    livemode,
    from,
    to,
    currency,
    sessions,
    sessionsWithAccept: total?.sessionsWithAccept ?? 0,
    grossRevenue: gross,
    refunded,
    netRevenue: gross - refunded,
    netRevenuePerCheckout: ratio(gross - refunded, sessions),
    steps,
  };
}
