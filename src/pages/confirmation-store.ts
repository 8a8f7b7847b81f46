import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { brands, checkouts, orders, upsellSessions } from "../db/schema/index.js";

// Queries of the order confirmation the success page reads (order-confirmation.ts).

const originalColumns = {
  id: orders.id,
  brandId: orders.brandId,
  orderId: orders.orderId,
  amountCents: orders.amountCents,
  currency: orders.currency,
  productName: sql<string | null>`${checkouts.claims}->>'productName'`,
  /** The token's line item ids in the token's order (line item rows have random ids, no position). */
  itemOrder: sql<string[] | null>`jsonb_path_query_array(${checkouts.claims}, '$.lineItems[*].id')`,
  brandName: brands.name,
  receiptsEnabled: brands.receiptsEnabled,
  customerEmail: orders.customerEmail,
};

export type ConfirmedOrder = { id: string; brandId: string; orderId: string; amountCents: number; currency: string; productName: string | null; itemOrder: string[] | null; brandName: string; receiptsEnabled: boolean; customerEmail: string };

const originalOrders = (db: Db) =>
  db.select(originalColumns).from(orders).innerJoin(brands, eq(brands.id, orders.brandId)).leftJoin(checkouts, eq(checkouts.id, orders.checkoutId));

/** The checkout order `orderId` paid by `transactionId` (what the checkout page appends to the success URL). */
export async function findOrderByTransaction(db: Db, orderId: string, transactionId: string): Promise<ConfirmedOrder | null> {
  const [row] = await originalOrders(db)
    .where(and(eq(orders.kind, "checkout"), eq(orders.orderId, orderId), eq(orders.transactionId, transactionId)))
    .orderBy(desc(orders.createdAt))
    .limit(1);
  return row ?? null;
}

/** The original checkout order of upsell session `sessionId` when `orderId` is that order's or the session's upsell orderId. */
export async function findOrderBySession(db: Db, orderId: string, sessionId: string): Promise<ConfirmedOrder | null> {
  const [row] = await originalOrders(db)
    .innerJoin(upsellSessions, eq(upsellSessions.originalOrderRef, orders.id))
    .where(and(eq(upsellSessions.id, sessionId), sql`${orderId} in (${upsellSessions.originalOrderId}, ${upsellSessions.orderId})`))
    .limit(1);
  return row ?? null;
}

/** The completed checkout order `orderId` of brand `brandId` (the checkout token's order: the page's way back after paying). */
export async function findOrderOfBrand(db: Db, brandId: string, orderId: string): Promise<ConfirmedOrder | null> {
  const [row] = await originalOrders(db)
    .where(and(eq(orders.kind, "checkout"), eq(orders.brandId, brandId), eq(orders.orderId, orderId)))
    .orderBy(desc(orders.createdAt))
    .limit(1);
  return row ?? null;
}
