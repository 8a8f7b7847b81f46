import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";

// Approval analytics' queries (docs/orchestration.md "Approval analytics"): grouped sums over the day
// counters of src/payments/approval-stats.ts; the attempts themselves are never read. Every attempt
// is counted once in each dimension, so the provider rows alone give the totals and the days.

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

const SUMS = sql.raw(`sum(attempts)::float8 as attempts, sum(approved)::float8 as approved, sum(declined)::float8 as declined, sum(failed)::float8 as failed,
  sum(approved_amount)::float8 as "approvedAmount", sum(recovered)::float8 as recovered, sum(recovered_amount)::float8 as "recoveredAmount",
  sum(refunded_amount)::float8 as "refundedAmount"`);

const sumsOf = (r: Record<string, unknown>): ApprovalSums => ({
  attempts: Number(r.attempts),
  approved: Number(r.approved),
  declined: Number(r.declined),
  failed: Number(r.failed),
  approvedAmount: Number(r.approvedAmount),
  recovered: Number(r.recovered),
  recoveredAmount: Number(r.recoveredAmount),
  refundedAmount: Number(r.refundedAmount),
});
const rowsOf = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;

/** The brand's counters of one mode and the days from..to (inclusive), per currency and day (the provider rows: about 4 a day and currency). */
export async function approvalDays(db: Db, brandId: string, livemode: boolean, from: string, to: string): Promise<(ApprovalSums & { currency: string; day: string })[]> {
  const result = await db.execute(sql`
    select currency, to_char(day, 'YYYY-MM-DD') as day, ${SUMS}
    from approval_daily_stats
    where brand_id = ${brandId} and livemode = ${livemode} and day >= ${from}::date and day <= ${to}::date and dimension = 'provider'
    group by currency, day`);
  return rowsOf(result).map((r) => ({ currency: String(r.currency), day: String(r.day), ...sumsOf(r) }));
}

/** The same counters of one currency, per dimension and value. */
export async function approvalValues(db: Db, brandId: string, livemode: boolean, from: string, to: string, currency: string): Promise<(ApprovalSums & { dimension: string; value: string })[]> {
  const result = await db.execute(sql`
    select dimension, value, ${SUMS}
    from approval_daily_stats
    where brand_id = ${brandId} and livemode = ${livemode} and day >= ${from}::date and day <= ${to}::date and currency = ${currency}
    group by dimension, value`);
  return rowsOf(result).map((r) => ({ dimension: String(r.dimension), value: String(r.value), ...sumsOf(r) }));
}
