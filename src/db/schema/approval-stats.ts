import { sql } from "drizzle-orm";
import { bigint, boolean, date, index, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";

// Approval analytics (issue 34 item 7, docs/orchestration.md "Approval analytics"): counters per UTC
// day, written in the transaction of each provider attempt (src/payments/approval-stats.ts) and of
// each refund that settles, so the analytics query sums day rows and never reads the attempts.

/** The breakdowns each attempt is counted in: one row per dimension, so every dimension adds up to the same totals. */
export const APPROVAL_DIMENSIONS = ["provider", "decline_code", "card_brand", "bin_country", "amount_band"] as const;
export type ApprovalDimension = (typeof APPROVAL_DIMENSIONS)[number];

/**
 * One counter row per brand, mode, UTC day, currency, dimension, value and shard. `value` is the
 * attempt's provider, normalised decline code ('' for approvals), card brand, BIN country or amount
 * band ('' when unknown). An attempt adds to one row of each dimension, all in one shard drawn at
 * random (concurrent payments of a brand rarely wait for each other's row lock); the shards of days
 * that no payment writes any more are folded into shard 0 (foldApprovalStats), so a year reads
 * about one row per day and value.
 */
export const approvalDailyStats = pgTable(
  "approval_daily_stats",
  {
    brandId: text("brand_id").notNull(),
    livemode: boolean("livemode").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    currency: text("currency").notNull(),
    dimension: text("dimension").$type<ApprovalDimension>().notNull(),
    value: text("value").notNull(),
    shard: smallint("shard").notNull(),
    /** Every attempt recorded: approved + declined + failed. */
    attempts: bigint("attempts", { mode: "number" }).notNull().default(sql`0`),
    approved: bigint("approved", { mode: "number" }).notNull().default(sql`0`),
    declined: bigint("declined", { mode: "number" }).notNull().default(sql`0`),
    /** The provider failed (timeout, 5xx, unreadable answer): no bank's answer. */
    failed: bigint("failed", { mode: "number" }).notNull().default(sql`0`),
    /** Minor units of `currency`. */
    approvedAmount: bigint("approved_amount", { mode: "number" }).notNull().default(sql`0`),
    /** Approvals after a soft decline earlier in the same pay request (a cascade saved the sale). */
    recovered: bigint("recovered", { mode: "number" }).notNull().default(sql`0`),
    recoveredAmount: bigint("recovered_amount", { mode: "number" }).notNull().default(sql`0`),
    /** Refunds that settled since, on the charges approved this day (counted on the charge's day). */
    refundedAmount: bigint("refunded_amount", { mode: "number" }).notNull().default(sql`0`),
  },
  (t) => [
    primaryKey({ columns: [t.brandId, t.livemode, t.day, t.currency, t.dimension, t.value, t.shard] }),
    // The fold's rows (foldApprovalStats): only the days still spread over shards, so it stays small.
    index("approval_daily_stats_unfolded_idx").on(t.day).where(sql`shard <> 0`),
  ],
);
