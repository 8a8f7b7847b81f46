import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { commissionAdjustments } from "../db/schema/index.js";
import type { Payout } from "./schemas.js";

/** A commission a markPaid action just paid. */
export interface PaidCommission {
  brandId: string;
  salespersonId: string;
  currency: string;
  amount: number;
}

/**
 * A markPaid action is a payout: per salesperson and currency it nets the open clawbacks of the brand
 * (CONTRACT §38), oldest first, as long as what is paid stays at or above zero; a clawback that does
 * not fit waits, whole, for the next payout. Netted clawbacks are marked in the payout's transaction
 * (locked first, so two payouts never net one twice) and audited.
 */
export async function netClawbacks(tx: Db, ctx: Pick<Ctx, "clock" | "actor" | "clientAddress" | "userAgent">, organizationId: string, paid: PaidCommission[]): Promise<Payout[]> {
  const groups = new Map<string, Payout & { brandId: string }>();
  for (const c of paid) {
    const key = JSON.stringify([c.brandId, c.salespersonId, c.currency]);
    const group = groups.get(key) ?? { brandId: c.brandId, salespersonId: c.salespersonId, currency: c.currency, commissions: 0, clawbacks: 0, net: 0 };
    group.commissions += c.amount;
    groups.set(key, group);
  }
  const now = new Date(ctx.clock.now());
  const payouts: Payout[] = [];
  for (const { brandId, ...payout } of groups.values()) {
    const open = await tx
      .select()
      .from(commissionAdjustments)
      .where(
        and(
          eq(commissionAdjustments.organizationId, organizationId),
          eq(commissionAdjustments.brandId, brandId),
          eq(commissionAdjustments.salespersonId, payout.salespersonId),
          eq(commissionAdjustments.currency, payout.currency),
          eq(commissionAdjustments.kind, "clawback"),
          isNull(commissionAdjustments.nettedAt),
        ),
      )
      .orderBy(asc(commissionAdjustments.createdAt), asc(commissionAdjustments.id))
      .for("update");
    const netted = [];
    for (const clawback of open) {
      if (payout.commissions + payout.clawbacks + clawback.amountCents < 0) break;
      payout.clawbacks += clawback.amountCents;
      netted.push(clawback);
    }
    payout.net = payout.commissions + payout.clawbacks;
    if (netted.length > 0) {
      await tx
        .update(commissionAdjustments)
        .set({ nettedAt: now })
        .where(inArray(commissionAdjustments.id, netted.map((c) => c.id)));
    }
    for (const clawback of netted) {
      await recordAudit(tx, ctx, {
        action: "commission.net_clawback",
        resourceType: "commission",
        resourceId: clawback.commissionId,
        success: true,
        organizationId,
        brandId,
        details: { adjustmentId: clawback.id, amount: clawback.amountCents, currency: clawback.currency, payout: { salespersonId: payout.salespersonId, commissions: payout.commissions, net: payout.net } },
      });
    }
    payouts.push(payout);
  }
  return payouts;
}
