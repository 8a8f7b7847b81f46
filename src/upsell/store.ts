import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { checkouts, orderLineItems, orders, paymentDeclines, upsellOfferResults, upsellOfferStats, upsellSessions } from "../db/schema/index.js";

// The upsell feature's queries. Each takes a db handle (client or transaction).

export type UpsellSessionRow = typeof upsellSessions.$inferSelect;
export type OfferResultRow = typeof upsellOfferResults.$inferSelect;

/**
 * The original checkout order for create-session, with its checkout's successUrl and webhookUrl.
 * With a token, only the order that token was issued for matches (CONTRACT §8); without one, the
 * newest checkout order carrying that orderId.
 */
export async function findOriginalOrder(db: Db, originalOrderId: string, paymentMethodToken: string | undefined) {
  const conditions = [eq(orders.orderId, originalOrderId), eq(orders.kind, "checkout")];
  if (paymentMethodToken !== undefined) conditions.push(eq(orders.paymentMethodToken, paymentMethodToken));
  const [row] = await db
    .select({
      id: orders.id,
      brandId: orders.brandId,
      checkoutId: orders.checkoutId,
      provider: orders.provider,
      currency: orders.currency,
      amountCents: orders.amountCents,
      paymentMethodToken: orders.paymentMethodToken,
      customerName: orders.customerName,
      customerEmail: orders.customerEmail,
      createdAt: orders.createdAt,
      successUrl: checkouts.successUrl,
      webhookUrl: checkouts.webhookUrl,
    })
    .from(orders)
    .leftJoin(checkouts, eq(checkouts.id, orders.checkoutId))
    .where(and(...conditions))
    .orderBy(desc(orders.createdAt))
    .limit(1);
  return row ?? null;
}
export type OriginalOrder = NonNullable<Awaited<ReturnType<typeof findOriginalOrder>>>;

export async function insertSession(tx: Db, session: typeof upsellSessions.$inferInsert): Promise<void> {
  await tx.insert(upsellSessions).values(session);
}

export async function findSession(db: Db, id: string): Promise<UpsellSessionRow | null> {
  const [row] = await db.select().from(upsellSessions).where(eq(upsellSessions.id, id));
  return row ?? null;
}

/** Locks the session row: answers to one session are decided one at a time, across processes. */
export async function lockSession(tx: Db, id: string): Promise<UpsellSessionRow | null> {
  const [row] = await tx.select().from(upsellSessions).where(eq(upsellSessions.id, id)).for("update");
  return row ?? null;
}

export async function updateSession(tx: Db, id: string, changes: Partial<typeof upsellSessions.$inferInsert>): Promise<void> {
  await tx.update(upsellSessions).set(changes).where(eq(upsellSessions.id, id));
}

export async function findOfferResult(db: Db, sessionId: string, offerId: string): Promise<OfferResultRow | null> {
  const [row] = await db
    .select()
    .from(upsellOfferResults)
    .where(and(eq(upsellOfferResults.sessionId, sessionId), eq(upsellOfferResults.offerId, offerId)));
  return row ?? null;
}

/** Reserves the (session, offer) answer; false when it already exists (CONTRACT §7). */
export async function reserveOfferResult(tx: Db, sessionId: string, offerId: string, decision: "pending" | "declined", now: Date): Promise<boolean> {
  const rows = await tx
    .insert(upsellOfferResults)
    .values({ sessionId, offerId, decision, createdAt: now })
    .onConflictDoNothing()
    .returning({ offerId: upsellOfferResults.offerId });
  return rows.length === 1;
}

export async function finaliseOfferResult(tx: Db, sessionId: string, offerId: string, changes: Partial<typeof upsellOfferResults.$inferInsert>): Promise<void> {
  await tx
    .update(upsellOfferResults)
    .set(changes)
    .where(and(eq(upsellOfferResults.sessionId, sessionId), eq(upsellOfferResults.offerId, offerId)));
}

/** A refused charge leaves the offer unanswered: the reservation goes. */
export async function releaseOfferResult(tx: Db, sessionId: string, offerId: string): Promise<void> {
  await tx
    .delete(upsellOfferResults)
    .where(and(eq(upsellOfferResults.sessionId, sessionId), eq(upsellOfferResults.offerId, offerId), eq(upsellOfferResults.decision, "pending")));
}

export async function insertUpsellOrder(tx: Db, order: typeof orders.$inferInsert, lineItem: Omit<typeof orderLineItems.$inferInsert, "orderRef">): Promise<void> {
  await tx.insert(orders).values(order);
  await tx.insert(orderLineItems).values({ ...lineItem, orderRef: order.id });
}

export async function insertDecline(tx: Db, decline: typeof paymentDeclines.$inferInsert): Promise<void> {
  await tx.insert(paymentDeclines).values(decline);
}

/** Adds to an offer's take-rate counters (created on first use). Called last in a transaction: the row is hot. */
export async function bumpOfferStats(
  tx: Db,
  key: { brandId: string; offerId: string; currency: string },
  delta: { shown?: number; accepted?: number; declined?: number; revenueCents?: number },
  now: Date,
): Promise<void> {
  const shown = delta.shown ?? 0;
  const accepted = delta.accepted ?? 0;
  const declined = delta.declined ?? 0;
  const revenueCents = delta.revenueCents ?? 0;
  await tx
    .insert(upsellOfferStats)
    .values({ ...key, shown, accepted, declined, revenueCents, updatedAt: now })
    .onConflictDoUpdate({
      target: [upsellOfferStats.brandId, upsellOfferStats.offerId, upsellOfferStats.currency],
      set: {
        shown: sql`${upsellOfferStats.shown} + ${shown}`,
        accepted: sql`${upsellOfferStats.accepted} + ${accepted}`,
        declined: sql`${upsellOfferStats.declined} + ${declined}`,
        revenueCents: sql`${upsellOfferStats.revenueCents} + ${revenueCents}`,
        updatedAt: now,
      },
    });
}

export async function findOfferStats(db: Db, brandId: string, offerId: string) {
  return db.select().from(upsellOfferStats).where(and(eq(upsellOfferStats.brandId, brandId), eq(upsellOfferStats.offerId, offerId)));
}

/** The original order's customer data, copied onto each upsell order. */
export async function findOriginalOrderRow(db: Db, orderRef: string) {
  const [row] = await db
    .select({ customerName: orders.customerName, customer: orders.customer, billingAddress: orders.billingAddress, shippingAddress: orders.shippingAddress })
    .from(orders)
    .where(eq(orders.id, orderRef));
  return row ?? null;
}
