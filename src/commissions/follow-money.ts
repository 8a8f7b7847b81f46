import { and, eq, sql } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { commissionAdjustments, commissions, type CommissionStatus } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";

/**
 * Commissions follow the money (CONTRACT §38, docs/admin.md "Commissions follow the money"). Every
 * function here runs in the transaction that records the refund or the dispute change, so a
 * commission moves exactly once with it; the commission row is locked first, so refunds and
 * disputes of one charge change it one at a time.
 */

type CommissionRow = typeof commissions.$inferSelect;
type AuditCtx = Pick<Ctx, "clock" | "actor" | "clientAddress" | "userAgent">;

/** What took money back from the charge: a refund, or a dispute lost or accepted. */
export type MoneyCause = { refundId: string } | { disputeId: string };

/**
 * What the salesperson is still owed once `takenBack` of a charge of `charged` went back: the
 * commission before any reduction (`base`), pro rata to what is left of the charge; nothing once all
 * went back. Computed from the totals, never step by step, so rounding never adds up over refunds.
 */
export function owedAfter(base: number, charged: number, takenBack: number): number {
  if (charged <= 0 || takenBack >= charged) return 0;
  return Math.round((base * (charged - takenBack)) / charged);
}

export type MoneyMove = { kind: "none" } | { kind: "cancel" } | { kind: "reduce"; amount: number } | { kind: "clawback"; amount: number };

/**
 * The rule, pure: a pending or approved commission is cancelled when nothing is owed any more and
 * reduced to what is owed otherwise; a paid one keeps its status and gets a negative clawback line for
 * what was paid beyond what is owed (`clawedBack`: its clawbacks so far, ≤ 0). Cancelled ones stay.
 */
export function moneyMove(status: CommissionStatus, current: number, clawedBack: number, owed: number): MoneyMove {
  if (status === "pending" || status === "approved") {
    if (owed === 0) return { kind: "cancel" };
    return owed < current ? { kind: "reduce", amount: owed - current } : { kind: "none" };
  }
  if (status === "paid") {
    const kept = current + clawedBack;
    return owed < kept ? { kind: "clawback", amount: owed - kept } : { kind: "none" };
  }
  return { kind: "none" };
}

/** The status the money rules see: a disputed commission counts as what it was (a hand-disputed one as unpaid). */
const heldStatus = (row: CommissionRow): CommissionStatus => (row.status === "disputed" ? (row.statusBeforeDispute ?? "approved") : row.status);

async function lockCommissionOf(tx: Db, orderRef: string): Promise<CommissionRow | undefined> {
  const [row] = await tx.select().from(commissions).where(eq(commissions.orderRef, orderRef)).for("update");
  return row;
}

async function adjustmentSums(tx: Db, commissionId: string): Promise<{ reductions: number; clawbacks: number }> {
  const sumOf = (kind: "reduction" | "clawback") => sql<number>`coalesce(sum(${commissionAdjustments.amountCents}) filter (where ${commissionAdjustments.kind} = ${kind}), 0)`.mapWith(Number);
  const [row] = await tx
    .select({ reductions: sumOf("reduction"), clawbacks: sumOf("clawback") })
    .from(commissionAdjustments)
    .where(eq(commissionAdjustments.commissionId, commissionId));
  return row ?? { reductions: 0, clawbacks: 0 };
}

const auditOf = (row: CommissionRow) => ({ resourceType: "commission", resourceId: row.id, success: true, organizationId: row.organizationId, brandId: row.brandId });

async function setStatus(tx: Db, ctx: AuditCtx, row: CommissionRow, to: CommissionStatus, action: "commission.cancel" | "commission.dispute" | "commission.restore", cause: MoneyCause) {
  const statusBeforeDispute = to === "disputed" ? row.status : null;
  await tx.update(commissions).set({ status: to, statusBeforeDispute, updatedAt: new Date(ctx.clock.now()) }).where(eq(commissions.id, row.id));
  await recordAudit(tx, ctx, { action, ...auditOf(row), details: { from: row.status, to, ...cause } });
}

/**
 * Money went back from the commissioned charge (`charge`, our order row): `takenBack` is all that refunds
 * (or a lost dispute) took back of it so far. A full refund cancels a pending or approved commission,
 * a partial one reduces it pro rata (a `reduction` row), and after payout a `clawback` row is added.
 */
export async function commissionFollowsMoney(tx: Db, ctx: AuditCtx, charge: { id: string; amountCents: number }, takenBack: number, cause: MoneyCause): Promise<void> {
  const row = await lockCommissionOf(tx, charge.id);
  if (!row) return;
  const sums = await adjustmentSums(tx, row.id);
  const owed = owedAfter(row.commissionAmountCents - sums.reductions, charge.amountCents, takenBack);
  const move = moneyMove(heldStatus(row), row.commissionAmountCents, sums.clawbacks, owed);
  if (move.kind === "none") return;
  if (move.kind === "cancel") return setStatus(tx, ctx, row, "cancelled", "commission.cancel", cause);

  const now = new Date(ctx.clock.now());
  const adjustmentId = newId("cadj");
  await tx.insert(commissionAdjustments).values({
    id: adjustmentId,
    commissionId: row.id,
    organizationId: row.organizationId,
    brandId: row.brandId,
    salespersonId: row.salespersonId,
    orderId: row.orderId,
    kind: move.kind === "reduce" ? "reduction" : "clawback",
    amountCents: move.amount,
    currency: row.currency,
    ...cause,
    createdAt: now,
  });
  if (move.kind === "reduce") {
    await tx.update(commissions).set({ commissionAmountCents: owed, updatedAt: now }).where(eq(commissions.id, row.id));
    await recordAudit(tx, ctx, { action: "commission.adjust", ...auditOf(row), details: { adjustmentId, from: row.commissionAmountCents, to: owed, amount: move.amount, ...cause } });
  } else {
    await recordAudit(tx, ctx, { action: "commission.clawback", ...auditOf(row), details: { adjustmentId, amount: move.amount, currency: row.currency, ...cause } });
  }
}

/** A dispute opened on the charge: a pending or approved commission is held `disputed`; a paid one keeps its status (only a lost dispute claws it back). */
export async function commissionDisputeOpened(tx: Db, ctx: AuditCtx, orderRef: string, disputeId: string): Promise<void> {
  const row = await lockCommissionOf(tx, orderRef);
  if (row && (row.status === "pending" || row.status === "approved")) await setStatus(tx, ctx, row, "disputed", "commission.dispute", { disputeId });
}

/** The charge's last open dispute closed in the merchant's favour: a commission a dispute held gets its status back. */
export async function commissionDisputeWon(tx: Db, ctx: AuditCtx, orderRef: string, disputeId: string): Promise<void> {
  const row = await lockCommissionOf(tx, orderRef);
  if (row?.status === "disputed" && row.statusBeforeDispute) await setStatus(tx, ctx, row, row.statusBeforeDispute, "commission.restore", { disputeId });
}
