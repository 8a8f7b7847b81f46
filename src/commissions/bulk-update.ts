import { and, eq, inArray } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { commissions } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole } from "../http/auth.js";
import { netClawbacks } from "./payout.js";
import type { CommissionBulkBody, CommissionBulkReply } from "./schemas.js";
import { transitionCommission, type CommissionAction } from "./transitions.js";

const AUDIT_ACTION = { approve: "commission.approve", cancel: "commission.cancel", dispute: "commission.dispute", markPaid: "commission.mark_paid" } as const satisfies Record<CommissionAction, string>;

/**
 * `POST /api/admin/commissions` (CONTRACT §13). One transaction: the brand's rows among the ids are
 * locked (`FOR UPDATE`, so two concurrent bulk actions see each other's result), each moves when the
 * transition table allows it and is audited with the notes; the others are reported back unchanged.
 * Ids of another brand or organization are reported exactly like unknown ids. `markPaid` is a payout:
 * it nets the salespeople's open clawbacks (payout.ts).
 */
export async function bulkUpdateCommissions({ ctx, input }: { ctx: Ctx; input: CommissionBulkBody }): Promise<CommissionBulkReply> {
  const scope = assertRole(ctx, "admin");
  const ids = [...new Set(input.commissionIds)];
  const now = new Date(ctx.clock.now());
  return withTransaction(ctx.db, async (tx) => {
    const rows = scope.brandId
      ? await tx
          .select({ id: commissions.id, status: commissions.status, brandId: commissions.brandId, salespersonId: commissions.salespersonId, currency: commissions.currency, amount: commissions.commissionAmountCents })
          .from(commissions)
          .where(and(eq(commissions.organizationId, scope.organizationId), eq(commissions.brandId, scope.brandId), inArray(commissions.id, ids)))
          .for("update")
      : [];
    const byId = new Map(rows.map((row) => [row.id, row]));
    const reply: CommissionBulkReply = { success: true, updated: [], skipped: [] };
    for (const id of ids) {
      const row = byId.get(id);
      if (!row) {
        reply.skipped.push({ id, status: null, reason: "Commission not found" });
        continue;
      }
      const move = transitionCommission(row.status, input.action);
      if (!move.allowed) {
        reply.skipped.push({ id, status: row.status, reason: move.reason });
        continue;
      }
      await tx
        .update(commissions)
        .set({ status: move.to, updatedAt: now, ...(input.notes !== undefined ? { notes: input.notes } : {}) })
        .where(eq(commissions.id, id));
      await recordAudit(tx, ctx, {
        action: AUDIT_ACTION[input.action],
        resourceType: "commission",
        resourceId: id,
        success: true,
        organizationId: scope.organizationId,
        brandId: row.brandId,
        details: { from: row.status, to: move.to, ...(input.notes !== undefined ? { notes: input.notes } : {}) },
      });
      reply.updated.push(id);
    }
    if (input.action === "markPaid") {
      const paid = reply.updated.map((id) => byId.get(id)!);
      reply.payouts = await netClawbacks(tx, ctx, scope.organizationId, paid);
    }
    return reply;
  });
}
