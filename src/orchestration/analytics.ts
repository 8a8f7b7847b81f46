import type { Ctx } from "../ctx.js";
import { assertRole, brandOfScope } from "../http/auth.js";
import { dayOfMs, dayParam } from "../lib/dates.js";
import { notFound, validationError } from "../lib/errors.js";
import { AMOUNT_BANDS } from "../payments/approval-stats.js";
import { readMode } from "../payments/mode.js";
import { approvalDays, approvalValues, type ApprovalSums } from "./analytics-store.js";
import { APPROVALS_DAYS_DEFAULT, APPROVALS_DAYS_MAX, type ApprovalFigures, type ApprovalsQuery, type ApprovalsReply } from "./analytics-schemas.js";

const DAY_MS = 86_400_000;

/** A bank's answers are approvals and declines; a provider's failure (timeout, 5xx) is no answer and stays out of the rate. */
function figuresOf(s: ApprovalSums): ApprovalFigures {
  const attempts = s.approved + s.declined;
  return {
    attempts,
    approved: s.approved,
    declined: s.declined,
    failed: s.failed,
    approvalRate: attempts === 0 ? 0 : s.approved / attempts,
    approvedAmount: s.approvedAmount,
    refundedAmount: s.refundedAmount,
    netAmount: s.approvedAmount - s.refundedAmount,
    recovered: s.recovered,
    recoveredAmount: s.recoveredAmount,
  };
}

const ZERO: ApprovalSums = { attempts: 0, approved: 0, declined: 0, failed: 0, approvedAmount: 0, recovered: 0, recoveredAmount: 0, refundedAmount: 0 };
const add = (into: ApprovalSums, s: ApprovalSums): ApprovalSums => {
  for (const k of Object.keys(ZERO) as (keyof ApprovalSums)[]) into[k] += s[k];
  return into;
};
const byAttempts = (a: { value: string; attempts: number; failed: number }, b: { value: string; attempts: number; failed: number }) =>
  b.attempts + b.failed - (a.attempts + a.failed) || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);

/**
 * `GET /api/admin/analytics/approvals?from=&to=&currency=&livemode=` (any member): the brand's
 * approval counters summed over the period, in one currency (`currency`, else the one with the most
 * attempts), per provider, decline code, card brand, BIN country, amount band and day.
 */
export async function approvalAnalytics({ ctx, input }: { ctx: Ctx; input: ApprovalsQuery }): Promise<ApprovalsReply> {
  const scope = assertRole(ctx, "member");
  const brandId = await brandOfScope(ctx.db, scope);
  // Figures of the session's brand only: another id (of this organization or any) reads as missing.
  if (input.brandId !== undefined && input.brandId !== brandId) throw notFound("Brand not found");
  const now = ctx.clock.now();
  const toMs = input.to !== undefined ? dayParam(input.to, "to") : now - (now % DAY_MS);
  const fromMs = input.from !== undefined ? dayParam(input.from, "from") : Math.max(0, toMs - (APPROVALS_DAYS_DEFAULT - 1) * DAY_MS);
  const span = (toMs - fromMs) / DAY_MS;
  if (span < 0) throw validationError("Invalid request: from must be a day on or before to", "from");
  if (span >= APPROVALS_DAYS_MAX) throw validationError(`Invalid request: at most ${APPROVALS_DAYS_MAX} days at a time`, "from");
  const [from, to] = [dayOfMs(fromMs), dayOfMs(toMs)];
  // One mode (CONTRACT §39): test attempts never count in a live shop's rates.
  const livemode = await readMode(ctx, brandId, input.livemode);

  // The days first (provider rows only): the period's currencies, and the one shown; then its breakdowns.
  const days = await approvalDays(ctx.db, brandId, livemode, from, to);
  const perCurrency = new Map<string, number>();
  for (const d of days) perCurrency.set(d.currency, (perCurrency.get(d.currency) ?? 0) + d.approved + d.declined);
  const currencies = [...perCurrency.entries()].map(([currency, attempts]) => ({ currency, attempts })).sort((a, b) => b.attempts - a.attempts || (a.currency < b.currency ? -1 : 1));
  const currency = input.currency ?? currencies[0]?.currency ?? null;
  const values = currency === null ? [] : await approvalValues(ctx.db, brandId, livemode, from, to, currency);
  const mine = days.filter((d) => d.currency === currency);

  const breakdown = (dimension: string) =>
    values
      .filter((g) => g.dimension === dimension)
      .map((g) => ({ value: g.value, ...figuresOf(g) }))
      .sort(byAttempts);
  const totals = figuresOf(mine.reduce(add, { ...ZERO }));
  const codes = values.filter((g) => g.dimension === "decline_code" && g.value !== "" && g.declined + g.failed > 0);
  const refused = codes.reduce((n, g) => n + g.declined + g.failed, 0);
  const bandOrder = (value: string) => (AMOUNT_BANDS as readonly string[]).indexOf(value);

  return {
    brandId,
    livemode,
    from,
    to,
    currency,
    currencies,
    totals,
    byProvider: breakdown("provider"),
    byDeclineCode: codes
      .map((g) => ({ value: g.value, declined: g.declined, failed: g.failed, share: refused === 0 ? 0 : (g.declined + g.failed) / refused }))
      .sort((a, b) => b.declined + b.failed - (a.declined + a.failed) || (a.value < b.value ? -1 : 1)),
    byCardBrand: breakdown("card_brand"),
    byBinCountry: breakdown("bin_country"),
    byAmountBand: breakdown("amount_band").sort((a, b) => bandOrder(a.value) - bandOrder(b.value)),
    byDay: mine.map((d) => ({ day: d.day, ...figuresOf(d) })).sort((a, b) => (a.day < b.day ? -1 : 1)),
  };
}
