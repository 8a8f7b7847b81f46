import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { disputes, orders, type DisputeStatus } from "../db/schema/index.js";
import type { OrderRow } from "../orders/store.js";
import type { DisputeNotice } from "../providers/webhook-scheme-kit.js";
import type { DisputeView } from "./schemas.js";

// The disputes feature's queries; each takes a db handle (client or transaction).

export type DisputeRow = typeof disputes.$inferSelect;

const OPEN: readonly DisputeStatus[] = ["needs_response", "under_review"];
export const isClosed = (status: DisputeStatus) => !OPEN.includes(status);
/** Closed with the money kept by the merchant. */
export const isMerchantsFavour = (status: DisputeStatus) => status === "won" || status === "charge_refunded";

export const disputeViewOf = (row: DisputeRow): DisputeView => ({
  id: row.id,
  orderId: row.orderId,
  chargeId: row.orderRef,
  provider: row.provider,
  providerDisputeId: row.providerDisputeId,
  amount: row.amountCents,
  currency: row.currency,
  reason: row.reason,
  status: row.status,
  dueBy: row.dueAt?.getTime() ?? null,
  evidence: row.evidence,
  evidenceSubmittedAt: row.evidenceSubmittedAt?.getTime() ?? null,
  evidenceSent: row.evidenceSent,
  closedAt: row.closedAt?.getTime() ?? null,
  createdAt: row.createdAt.getTime(),
});

/**
 * The charge a notice names in the brand, at its provider: by transaction id, else by the provider's
 * order id (the checkout's charge: upsells appended to a store order share its id), else by our order
 * id. None or several is no match.
 */
export async function findDisputedCharge(db: Db, brandId: string, provider: string, notice: DisputeNotice): Promise<OrderRow | undefined> {
  const matches = [
    notice.transactionId && eq(orders.transactionId, notice.transactionId),
    notice.providerOrderId && and(eq(orders.providerOrderId, notice.providerOrderId), eq(orders.kind, "checkout")),
    notice.orderId && eq(orders.orderId, notice.orderId),
  ];
  for (const match of matches) {
    if (!match) continue;
    const rows = await db
      .select()
      .from(orders)
      .where(and(eq(orders.brandId, brandId), eq(orders.provider, provider), match))
      .limit(2);
    if (rows.length > 0) return rows.length === 1 ? rows[0] : undefined;
  }
  return undefined;
}

/** The brands with charges the notices name by transaction id or provider order id: how a dispute without our order id finds its brand's secret. */
export async function brandsOfDisputes(db: Db, provider: string, notices: DisputeNotice[]): Promise<string[]> {
  const transactionIds = notices.flatMap((n) => (n.transactionId ? [n.transactionId] : []));
  const providerOrderIds = notices.flatMap((n) => (n.providerOrderId ? [n.providerOrderId] : []));
  if (transactionIds.length === 0 && providerOrderIds.length === 0) return [];
  const named = [
    ...(transactionIds.length > 0 ? [inArray(orders.transactionId, transactionIds)] : []),
    ...(providerOrderIds.length > 0 ? [inArray(orders.providerOrderId, providerOrderIds)] : []),
  ];
  const rows = await db
    .selectDistinct({ brandId: orders.brandId })
    .from(orders)
    .where(and(eq(orders.provider, provider), or(...named)))
    .limit(10);
  return rows.map((r) => r.brandId);
}

export async function findDispute(db: Db, brandId: string, provider: string, providerDisputeId: string): Promise<DisputeRow | undefined> {
  const [row] = await db
    .select()
    .from(disputes)
    .where(and(eq(disputes.brandId, brandId), eq(disputes.provider, provider), eq(disputes.providerDisputeId, providerDisputeId)));
  return row;
}

export async function findDisputeById(db: Db, id: string): Promise<DisputeRow | undefined> {
  const [row] = await db.select().from(disputes).where(eq(disputes.id, id));
  return row;
}

export async function insertDispute(tx: Db, row: typeof disputes.$inferInsert): Promise<DisputeRow> {
  const [inserted] = await tx.insert(disputes).values(row).returning();
  return inserted!;
}

export async function updateDispute(tx: Db, id: string, patch: Partial<typeof disputes.$inferInsert>): Promise<DisputeRow> {
  const [row] = await tx.update(disputes).set(patch).where(eq(disputes.id, id)).returning();
  return row!;
}

/** The disputes of these charges (our order ids), oldest first. */
export async function findDisputesOf(db: Db, orderRefs: string[]): Promise<DisputeRow[]> {
  if (orderRefs.length === 0) return [];
  return db.select().from(disputes).where(inArray(disputes.orderRef, orderRefs)).orderBy(asc(disputes.createdAt), asc(disputes.id));
}

export async function hasOpenDispute(tx: Db, orderRef: string): Promise<boolean> {
  const [row] = await tx
    .select({ id: disputes.id })
    .from(disputes)
    .where(and(eq(disputes.orderRef, orderRef), inArray(disputes.status, [...OPEN])))
    .limit(1);
  return row !== undefined;
}

/** Keeps `orders.disputed` (the list's `disputed` status and filter): the charge has a dispute that is open or took the money back. */
export async function refreshChargeDisputed(tx: Db, orderRef: string): Promise<void> {
  const holding: DisputeStatus[] = ["needs_response", "under_review", "lost", "accepted"];
  await tx
    .update(orders)
    .set({ disputed: sql`exists (select 1 from ${disputes} where ${disputes.orderRef} = ${orderRef} and ${inArray(disputes.status, holding)})` })
    .where(eq(orders.id, orderRef));
}
