import { and, asc, desc, eq, gte, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { commissions, orderLineItems, orders, refunds } from "../db/schema/index.js";
import type { OrderListQuery, OrderStatus } from "./schemas.js";

export type OrderRow = typeof orders.$inferSelect;

/** Where a page starts: after this order in (createdAt, id) descending. */
export interface OrderCursor {
  createdAt: number;
  id: string;
}

function statusCondition(status: OrderStatus): SQL {
  const refundedInFull = sql`${orders.refundedCents} >= ${orders.amountCents}`;
  switch (status) {
    case "paid":
      return and(or(isNull(orders.paymentStatus), eq(orders.paymentStatus, "succeeded")), eq(orders.refundedCents, 0))!;
    case "partially_refunded":
      return and(sql`${orders.refundedCents} > 0`, sql`not (${refundedInFull})`, sql`${orders.paymentStatus} is distinct from 'refunded'`)!;
    case "refunded":
      return or(eq(orders.paymentStatus, "refunded"), refundedInFull)!;
    case "failed":
      return eq(orders.paymentStatus, "failed");
    default:
      return sql`false`;
  }
}

/** The search box: exact ids, or the start of an email or a name, ignoring case. */
function searchCondition(q: string): SQL {
  const prefix = `${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return or(eq(orders.orderId, q), eq(orders.transactionId, q), sql`lower(${orders.customerEmail}) like ${prefix}`, sql`lower(${orders.customerName}) like ${prefix}`)!;
}

/**
 * The page's checkout orders of one brand, newest first; one more than `limit` tells whether a next
 * page exists. Unexecuted, so the plan test can EXPLAIN it.
 */
export function orderPageQuery(db: Db, brandId: string, query: OrderListQuery, after: OrderCursor | null) {
  // The tenant condition comes from the caller, never from the query.
  const conditions: SQL[] = [eq(orders.brandId, brandId), eq(orders.kind, "checkout")];
  if (query.q) conditions.push(searchCondition(query.q.trim()));
  if (query.status) conditions.push(statusCondition(query.status));
  if (query.provider) conditions.push(eq(orders.provider, query.provider));
  if (query.from !== undefined) conditions.push(gte(orders.createdAt, new Date(query.from)));
  if (query.to !== undefined) conditions.push(lt(orders.createdAt, new Date(query.to)));
  if (query.minAmount !== undefined) conditions.push(gte(orders.amountCents, query.minAmount));
  if (query.maxAmount !== undefined) conditions.push(lte(orders.amountCents, query.maxAmount));
  if (query.test !== undefined) conditions.push(query.test ? eq(orders.paidInDemo, true) : sql`${orders.paidInDemo} is not true`);
  if (after) {
    const at = new Date(after.createdAt);
    conditions.push(or(lt(orders.createdAt, at), and(eq(orders.createdAt, at), lt(orders.id, after.id)))!);
  }
  return db
    .select()
    .from(orders)
    .where(and(...conditions))
    .orderBy(desc(orders.createdAt), desc(orders.id))
    .limit(query.limit + 1);
}

/** The accepted upsells of these checkout orders (our ids), oldest first. */
export async function findUpsellsOf(db: Db, brandId: string, parentIds: string[]): Promise<OrderRow[]> {
  if (parentIds.length === 0) return [];
  return db
    .select()
    .from(orders)
    .where(and(eq(orders.brandId, brandId), eq(orders.kind, "upsell"), inArray(orders.parentOrderId, parentIds)))
    .orderBy(asc(orders.createdAt), asc(orders.id));
}

/** A checkout order of the brand, by our id or by the merchant's order id. */
export async function findCheckoutOrder(db: Db, brandId: string, where: { id: string } | { orderId: string }): Promise<OrderRow | undefined> {
  const match = "id" in where ? eq(orders.id, where.id) : eq(orders.orderId, where.orderId);
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.brandId, brandId), eq(orders.kind, "checkout"), match))
    .limit(1);
  return row;
}

export async function findLineItemsOf(db: Db, orderRefs: string[]) {
  if (orderRefs.length === 0) return [];
  return db.select().from(orderLineItems).where(inArray(orderLineItems.orderRef, orderRefs)).orderBy(asc(orderLineItems.id));
}

export async function findCommissionsOf(db: Db, brandId: string, orderRefs: string[]) {
  if (orderRefs.length === 0) return [];
  return db
    .select()
    .from(commissions)
    .where(and(eq(commissions.brandId, brandId), inArray(commissions.orderRef, orderRefs)))
    .orderBy(asc(commissions.createdAt));
}

export type RefundRow = typeof refunds.$inferSelect;

/** The charge row, locked for the refund's reservation: concurrent refunds of one charge queue here. */
export async function lockCharge(tx: Db, orderRef: string): Promise<OrderRow | undefined> {
  const [row] = await tx.select().from(orders).where(eq(orders.id, orderRef)).for("update");
  return row;
}

/** What pending and succeeded refunds hold of a charge: the part no other refund may take. */
export async function heldByRefunds(tx: Db, orderRef: string): Promise<number> {
  const [row] = await tx
    .select({ held: sql<number>`coalesce(sum(${refunds.amountCents}), 0)`.mapWith(Number) })
    .from(refunds)
    .where(and(eq(refunds.orderRef, orderRef), inArray(refunds.status, ["pending", "succeeded"])));
  return row?.held ?? 0;
}

export async function insertRefund(tx: Db, row: typeof refunds.$inferInsert): Promise<RefundRow> {
  const [inserted] = await tx.insert(refunds).values(row).returning();
  return inserted!;
}

/** Settles a pending refund; false when it was settled already (by the reconciler or a repeat). */
export async function settleRefund(tx: Db, id: string, patch: Pick<RefundRow, "status" | "providerRefundId" | "failureReason" | "updatedAt">): Promise<boolean> {
  const rows = await tx
    .update(refunds)
    .set(patch)
    .where(and(eq(refunds.id, id), eq(refunds.status, "pending")))
    .returning({ id: refunds.id });
  return rows.length === 1;
}

/** Adds a succeeded refund to its charge; answers the charge's refunded total. */
export async function addRefunded(tx: Db, orderRef: string, amountCents: number): Promise<number> {
  const [row] = await tx
    .update(orders)
    .set({ refundedCents: sql`${orders.refundedCents} + ${amountCents}` })
    .where(eq(orders.id, orderRef))
    .returning({ refundedCents: orders.refundedCents });
  return row!.refundedCents;
}

export async function findRefundsOf(db: Db, orderRefs: string[]): Promise<RefundRow[]> {
  if (orderRefs.length === 0) return [];
  return db.select().from(refunds).where(inArray(refunds.orderRef, orderRefs)).orderBy(asc(refunds.createdAt), asc(refunds.id));
}
