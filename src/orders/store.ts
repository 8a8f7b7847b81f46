import { and, asc, desc, eq, gte, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { commissions, orderLineItems, orders } from "../db/schema/index.js";
import type { OrderListQuery, OrderStatus } from "./schemas.js";

export type OrderRow = typeof orders.$inferSelect;

/** Where a page starts: after this order in (createdAt, id) descending. */
export interface OrderCursor {
  createdAt: number;
  id: string;
}

function statusCondition(status: OrderStatus): SQL {
  switch (status) {
    case "paid":
      return or(isNull(orders.paymentStatus), eq(orders.paymentStatus, "succeeded"))!;
    case "refunded":
    case "failed":
      return eq(orders.paymentStatus, status);
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
