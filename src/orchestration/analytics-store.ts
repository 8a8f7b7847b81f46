import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";

// Approval analytics' query (docs/orchestration.md "Approval analytics"): grouped sums over the day
// counters of src/payments/approval-stats.ts; the attempts themselves are never read.

export interface ApprovalSums {
  attempts: number;
  approved: number;
  declined: number;
  failed: number;
  approvedAmount: number;
  recovered: number;
  recoveredAmount: number;
  refundedAmount: number;
}
export interface ApprovalGroup extends ApprovalSums {
  currency: string;
  dimension: string;
  /** The dimension's value; null in a day's group. */
  value: string | null;
  /** YYYY-MM-DD; null in a value's group. */
  day: string | null;
}

/**
 * One statement: the brand's counters of one mode and the days from..to (inclusive), summed per
 * currency, dimension and value, and per currency, dimension and day. Every dimension counts every
 * attempt once, so the caller takes totals and days from one of them.
 */
export async function approvalGroups(db: Db, brandId: string, livemode: boolean, from: string, to: string): Promise<ApprovalGroup[]> {
  const result = await db.execute(sql`
    select currency, dimension, value, to_char(day, 'YYYY-MM-DD') as day,
      sum(attempts)::float8 as attempts, sum(approved)::float8 as approved, sum(declined)::float8 as declined, sum(failed)::float8 as failed,
      sum(approved_amount)::float8 as "approvedAmount", sum(recovered)::float8 as recovered, sum(recovered_amount)::float8 as "recoveredAmount",
      sum(refunded_amount)::float8 as "refundedAmount"
    from approval_daily_stats
    where brand_id = ${brandId} and livemode = ${livemode} and day >= ${from}::date and day <= ${to}::date
    group by grouping sets ((currency, dimension, value), (currency, dimension, day))`);
  return (result as unknown as { rows: Record<string, unknown>[] }).rows.map((r) => ({
    currency: String(r.currency),
    dimension: String(r.dimension),
    value: r.value === null ? null : String(r.value),
    day: r.day === null ? null : String(r.day),
    attempts: Number(r.attempts),
    approved: Number(r.approved),
    declined: Number(r.declined),
    failed: Number(r.failed),
    approvedAmount: Number(r.approvedAmount),
    recovered: Number(r.recovered),
    recoveredAmount: Number(r.recoveredAmount),
    refundedAmount: Number(r.refundedAmount),
  }));
}
