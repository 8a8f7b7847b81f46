import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { approvalDailyStats, type ApprovalDimension } from "../db/schema/index.js";
import type { Job } from "../jobs/runner.js";
import { minorDigits } from "../lib/money.js";
import type { PaymentProviderType } from "../providers/types.js";

// Approval analytics' counters (issue 34 item 7, docs/orchestration.md "Approval analytics"): one row
// per UTC day, currency, dimension (provider, decline code, card brand, BIN country, amount band) and
// value, added to in the transaction of each provider attempt and of each refund that settles. The
// analytics query (src/orchestration/analytics-store.ts) sums these rows; it never reads attempts.

export interface AttemptForStats {
  brandId: string;
  livemode: boolean;
  provider: PaymentProviderType;
  at: Date;
  result: "approved" | "declined" | "failed";
  declineCode: string | null;
  cardBrand: string | null;
  binCountry: string | null;
  amountCents: number;
  currency: string;
  /** approved after a soft decline earlier in the same pay request */
  recovered: boolean;
}

/** How many rows each (brand, mode, day, currency, dimension, value) counter is spread over. */
export const APPROVAL_STATS_SHARDS = 8;

/**
 * Amount bands in the currency's major units (USD 49.99 is "10-50"), lower bound inclusive: under 10,
 * 10 to under 50, 50 to under 100, 100 to under 500, 500 and more.
 */
export const AMOUNT_BANDS = ["<10", "10-50", "50-100", "100-500", "500+"] as const;
export type AmountBand = (typeof AMOUNT_BANDS)[number];

export function amountBandOf(amountCents: number, currency: string): AmountBand {
  const major = amountCents / 10 ** minorDigits(currency);
  if (major < 10) return "<10";
  if (major < 50) return "10-50";
  if (major < 100) return "50-100";
  if (major < 500) return "100-500";
  return "500+";
}

/** A declined or failed attempt whose code is not known (the normalised codes always give one). */
export const UNKNOWN_DECLINE = "unknown";

const DAY_MS = 86_400_000;
const dayOf = (at: Date) => at.toISOString().slice(0, 10);
/** A value as stored: trimmed to a length no code, brand or country reaches ('' when unknown). */
const valueOf = (value: string | null | undefined, upper = false) => {
  const text = (value ?? "").trim().slice(0, 40);
  return upper ? text.toUpperCase() : text;
};
const randomShard = () => Math.floor(Math.random() * APPROVAL_STATS_SHARDS);

const COUNTERS = ["attempts", "approved", "declined", "failed", "approvedAmount", "recovered", "recoveredAmount", "refundedAmount"] as const;
type Counters = Record<(typeof COUNTERS)[number], number>;
const ZERO: Counters = { attempts: 0, approved: 0, declined: 0, failed: 0, approvedAmount: 0, recovered: 0, recoveredAmount: 0, refundedAmount: 0 };
const COLUMN = { attempts: "attempts", approved: "approved", declined: "declined", failed: "failed", approvedAmount: "approved_amount", recovered: "recovered", recoveredAmount: "recovered_amount", refundedAmount: "refunded_amount" } as const;
/** ON CONFLICT: each counter adds the new row's. */
const ADD = Object.fromEntries(COUNTERS.map((c) => [c, sql.raw(`approval_daily_stats.${COLUMN[c]} + excluded.${COLUMN[c]}`)]));
const KEY = [approvalDailyStats.brandId, approvalDailyStats.livemode, approvalDailyStats.day, approvalDailyStats.currency, approvalDailyStats.dimension, approvalDailyStats.value, approvalDailyStats.shard];

/** The attempt's value in each dimension, in key order (rows locked in one order: concurrent attempts never deadlock). */
function valuesOf(attempt: AttemptForStats): [ApprovalDimension, string][] {
  const approved = attempt.result === "approved";
  return [
    ["amount_band", amountBandOf(attempt.amountCents, attempt.currency)],
    ["bin_country", valueOf(attempt.binCountry, true)],
    ["card_brand", valueOf(attempt.cardBrand).toLowerCase()],
    ["decline_code", approved ? "" : valueOf(attempt.declineCode) || UNKNOWN_DECLINE],
    ["provider", attempt.provider],
  ];
}

/** The counter rows one provider attempt adds to (5 rows, one random shard), in key order. `recovered` counts only with an approval. */
export function approvalStatsRows(attempt: AttemptForStats): (typeof approvalDailyStats.$inferInsert)[] {
  const approved = attempt.result === "approved";
  const recovered = approved && attempt.recovered;
  const counters: Counters = {
    ...ZERO,
    attempts: 1,
    approved: approved ? 1 : 0,
    declined: attempt.result === "declined" ? 1 : 0,
    failed: attempt.result === "failed" ? 1 : 0,
    approvedAmount: approved ? attempt.amountCents : 0,
    recovered: recovered ? 1 : 0,
    recoveredAmount: recovered ? attempt.amountCents : 0,
  };
  const key = { brandId: attempt.brandId, livemode: attempt.livemode, day: dayOf(attempt.at), currency: valueOf(attempt.currency, true), shard: randomShard() };
  return valuesOf(attempt).map(([dimension, value]) => ({ ...key, dimension, value, ...counters }));
}

/**
 * The rows of approvalStatsRows as JSON text for APPROVAL_STATS_UPSERT_SQL (a hot statement's
 * parameter): every column named, so the database's defaults are never needed.
 */
export function approvalStatsJson(attempt: AttemptForStats): string {
  return JSON.stringify(
    approvalStatsRows(attempt).map((row) => ({
      brand_id: row.brandId,
      livemode: row.livemode,
      day: row.day,
      currency: row.currency,
      dimension: row.dimension,
      value: row.value,
      shard: row.shard,
      ...Object.fromEntries(COUNTERS.map((c) => [COLUMN[c], row[c] ?? 0])),
    })),
  );
}

/**
 * The counters' upsert as SQL for a data-modifying CTE of a hot statement (cascade/store.ts
 * FINISH_PAID): the rows of approvalStatsJson in `param`, added only `when` holds, locked in key order
 * as recordApprovalStats does (concurrent attempts never deadlock).
 */
export function approvalStatsUpsertSql(param: string, when: string): string {
  const columns = ["brand_id", "livemode", "day", "currency", "dimension", "value", "shard", ...COUNTERS.map((c) => COLUMN[c])].join(", ");
  return `insert into approval_daily_stats (${columns})
     select ${columns} from jsonb_populate_recordset(null::approval_daily_stats, ${param}::jsonb)
     where ${when}
     order by dimension, value
     on conflict (brand_id, livemode, day, currency, dimension, value, shard) do update set
       ${COUNTERS.map((c) => `${COLUMN[c]} = approval_daily_stats.${COLUMN[c]} + excluded.${COLUMN[c]}`).join(", ")}`;
}

/**
 * Counts one provider attempt, in the attempt's transaction: one statement adding to one row of each
 * dimension (5 rows, one random shard). `recovered` counts only with an approval.
 */
export async function recordApprovalStats(tx: Db, attempt: AttemptForStats): Promise<void> {
  await tx.insert(approvalDailyStats).values(approvalStatsRows(attempt)).onConflictDoUpdate({ target: KEY, set: ADD });
}

/** A refund that settled, with what is known of the charge it gave money back on. */
export interface RefundForStats {
  brandId: string;
  livemode: boolean;
  provider: string;
  currency: string;
  /** When the charge was made: its counters' day (UTC). */
  chargedAt: Date;
  /** The charge's amount: its amount band. */
  chargeAmountCents: number;
  amountCents: number;
  /** When it settled. */
  at: Date;
  /** The card of the charge when the caller knows it; '' (unknown) otherwise. */
  cardBrand?: string | null;
  binCountry?: string | null;
}

/**
 * Nets a settled refund, in the refund's settling transaction: its amount is added to
 * `refunded_amount` of the charge's day, provider, currency and amount band (card brand and BIN
 * country '' unless given; decline code '', an approval's). One statement, and only where that
 * day's counters hold an approval of the provider in the currency: a refund of a charge the counters
 * never saw (made before they existed, or by a path that records no attempts) changes nothing.
 */
export async function recordRefundStats(tx: Db, refund: RefundForStats): Promise<void> {
  const day = dayOf(refund.chargedAt);
  const currency = valueOf(refund.currency, true);
  const rows: [ApprovalDimension, string][] = [
    ["amount_band", amountBandOf(refund.chargeAmountCents, currency)],
    ["bin_country", valueOf(refund.binCountry, true)],
    ["card_brand", valueOf(refund.cardBrand).toLowerCase()],
    ["decline_code", ""],
    ["provider", refund.provider],
  ];
  // A day the fold owns (before yesterday) is added to in shard 0, whose rows the fold locks in key
  // order as this statement does: the two never deadlock. Today's and yesterday's take a random shard.
  const shard = day < dayOf(new Date(refund.at.getTime() - DAY_MS)) ? 0 : randomShard();
  const values = sql.join(
    rows.map(([dimension, value]) => sql`(${dimension}, ${value})`),
    sql`, `,
  );
  await tx.execute(sql`
    insert into approval_daily_stats (brand_id, livemode, day, currency, dimension, value, shard, refunded_amount)
    select ${refund.brandId}, ${refund.livemode}, ${day}::date, ${currency}, v.dimension, v.value, ${shard}, ${refund.amountCents}::bigint
    from (values ${values}) as v(dimension, value)
    where exists (
      select 1 from approval_daily_stats s
      where s.brand_id = ${refund.brandId} and s.livemode = ${refund.livemode} and s.day = ${day}::date and s.currency = ${currency}
        and s.dimension = 'provider' and s.value = ${refund.provider} and s.approved > 0)
    order by v.dimension, v.value
    on conflict (brand_id, livemode, day, currency, dimension, value, shard) do update set refunded_amount = approval_daily_stats.refunded_amount + excluded.refunded_amount`);
}

/** Today's approved volume per provider in a currency (UTC day), for route()'s daily caps. */
export async function dailyApprovedVolume(db: Db, brandId: string, livemode: boolean, currency: string, day: Date): Promise<Map<string, number>> {
  const rows = await db
    .select({ provider: approvalDailyStats.value, amount: sql<number>`coalesce(sum(${approvalDailyStats.approvedAmount}), 0)::float8`.mapWith(Number) })
    .from(approvalDailyStats)
    .where(
      and(
        eq(approvalDailyStats.brandId, brandId),
        eq(approvalDailyStats.livemode, livemode),
        eq(approvalDailyStats.day, dayOf(day)),
        eq(approvalDailyStats.currency, currency.toUpperCase()),
        eq(approvalDailyStats.dimension, "provider"),
      ),
    )
    .groupBy(approvalDailyStats.value);
  return new Map(rows.map((r) => [r.provider, r.amount]));
}

/**
 * Folds the shards of the days before `beforeDay` (YYYY-MM-DD) into shard 0: one statement that
 * deletes those rows and adds their sums to shard 0. Payments write only today's rows (and
 * yesterday's for a moment after midnight), so older days need no shards; a year then reads about
 * one row per day and value. A refund settling later on an old day adds to its shard 0
 * (recordRefundStats), in key order as this statement does. Answers the number of rows folded away.
 */
export async function foldApprovalStats(db: Db, beforeDay: string): Promise<number> {
  const sums = COUNTERS.map((c) => `sum(${COLUMN[c]})`).join(", ");
  const columns = COUNTERS.map((c) => COLUMN[c]).join(", ");
  const result = await db.execute(sql`
    with moved as (
      delete from approval_daily_stats where day < ${beforeDay}::date and shard <> 0
      returning brand_id, livemode, day, currency, dimension, value, ${sql.raw(columns)}),
    folded as (
      insert into approval_daily_stats (brand_id, livemode, day, currency, dimension, value, shard, ${sql.raw(columns)})
      select brand_id, livemode, day, currency, dimension, value, 0, ${sql.raw(sums)}
      from moved group by brand_id, livemode, day, currency, dimension, value
      order by brand_id, livemode, day, currency, dimension, value
      on conflict (brand_id, livemode, day, currency, dimension, value, shard) do update set
        ${sql.raw(COUNTERS.map((c) => `${COLUMN[c]} = approval_daily_stats.${COLUMN[c]} + excluded.${COLUMN[c]}`).join(", "))}
      returning 1)
    select (select count(*) from moved)::int as moved`);
  const rows = (result as unknown as { rows: { moved: number }[] }).rows;
  return Number(rows[0]?.moved ?? 0);
}

/** The `approval-stats-fold` job: every hour, folds the shards of the days before yesterday (UTC). */
export function approvalStatsFoldJob(db: Db): Job {
  return {
    name: "approval-stats-fold",
    everyMs: 3_600_000,
    run: async (ctx) => {
      const beforeDay = dayOf(new Date(ctx.clock.now() - DAY_MS));
      const folded = await foldApprovalStats(db, beforeDay);
      if (folded > 0) ctx.log.info({ folded, beforeDay }, "approval stats folded");
      return false;
    },
  };
}
