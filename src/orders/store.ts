import { and, asc, desc, eq, gte, inArray, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { commissions, disputes, orderLineItems, orders, outboxEvents, paymentAttempts, refunds, webhookDeliveries, type DisputeStatus } from "../db/schema/index.js";
import { dateParam } from "../lib/dates.js";
import type { DisputeNotice } from "../providers/webhook-scheme-kit.js";
import type { DisputeView } from "./disputes/schemas.js";
import type { OrderListQuery, OrderStatus } from "./schemas.js";

export type OrderRow = typeof orders.$inferSelect;

/** Where a page starts: after this order in (createdAt, id) descending. */
export interface OrderCursor {
  createdAt: number;
  id: string;
}

/**
 * Orders something happened to after the sale: a refund, a dispute, or a provider's word on the
 * payment. A few in a hundred; the partial index orders_brand_after_sale_idx holds just them, so a
 * status filter other than `paid` reads those instead of every order of the brand. Same text as the
 * index predicate.
 */
export const AFTER_SALE = sql`(${orders.paymentStatus} is not null or ${orders.refundedCents} > 0 or ${orders.disputed})`;

/** The list's status filter: the same precedence as statusOf (src/orders/orders.ts), disputed first. */
function statusCondition(status: OrderStatus): SQL {
  const refundedInFull = sql`${orders.refundedCents} >= ${orders.amountCents}`;
  const undisputed = eq(orders.disputed, false);
  switch (status) {
    case "disputed":
      return and(AFTER_SALE, eq(orders.disputed, true))!;
    case "paid":
      return and(undisputed, or(isNull(orders.paymentStatus), eq(orders.paymentStatus, "succeeded")), eq(orders.refundedCents, 0))!;
    case "partially_refunded":
      return and(AFTER_SALE, undisputed, sql`${orders.refundedCents} > 0`, sql`not (${refundedInFull})`, sql`${orders.paymentStatus} is distinct from 'refunded'`)!;
    case "refunded":
      return and(AFTER_SALE, undisputed, or(eq(orders.paymentStatus, "refunded"), refundedInFull))!;
    case "failed":
      return and(AFTER_SALE, undisputed, eq(orders.paymentStatus, "failed"))!;
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
  const from = dateParam(query.from, "from");
  const to = dateParam(query.to, "to");
  if (from) conditions.push(gte(orders.createdAt, from));
  if (to) conditions.push(lt(orders.createdAt, to));
  if (query.minAmount !== undefined) conditions.push(gte(orders.amountCents, query.minAmount));
  if (query.maxAmount !== undefined) conditions.push(lte(orders.amountCents, query.maxAmount));
  // CONTRACT §39: one mode at a time; the verb resolves the mode (asked, the brand's, or the key's).
  if (query.livemode !== undefined) conditions.push(eq(orders.livemode, query.livemode));
  if (query.test !== undefined) conditions.push(query.test ? eq(orders.paidInDemo, true) : sql`${orders.paidInDemo} is not true`);
  if (after) {
    const at = new Date(after.createdAt);
    // The first condition is implied by the second; it is there as the index's range bound, so a page
    // deep in the list starts at the cursor instead of reading past every newer order.
    conditions.push(lte(orders.createdAt, at), or(lt(orders.createdAt, at), and(eq(orders.createdAt, at), lt(orders.id, after.id)))!);
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
export async function findCheckoutOrder(db: Db, brandId: string, where: { id: string } | { orderId: string }, livemode?: boolean): Promise<OrderRow | undefined> {
  const match = "id" in where ? eq(orders.id, where.id) : eq(orders.orderId, where.orderId);
  // A mode given (an API key's): an order of the other mode is not found (CONTRACT §39).
  const mode = livemode === undefined ? undefined : eq(orders.livemode, livemode);
  const [row] = await db
    .select()
    .from(orders)
    .where(and(eq(orders.brandId, brandId), eq(orders.kind, "checkout"), match, mode))
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

export async function findOrderRow(db: Db, id: string): Promise<OrderRow | undefined> {
  const [row] = await db.select().from(orders).where(eq(orders.id, id));
  return row;
}

/** A pending refund the provider could not answer for: the reconciler looks again at `at` (Unix ms). */
export async function rescheduleRefund(db: Db, id: string, at: number): Promise<void> {
  await db.update(refunds).set({ nextAttemptAt: new Date(at) }).where(and(eq(refunds.id, id), eq(refunds.status, "pending")));
}

export async function findRefund(db: Db, id: string): Promise<RefundRow | undefined> {
  const [row] = await db.select().from(refunds).where(eq(refunds.id, id));
  return row;
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

/**
 * The provider attempts of one order of the brand (the pay path's cascade, issue 34), oldest first:
 * one statement on payment_attempts_order_idx (brand_id, order_id). Orders paid through the old
 * provider endpoints have none. Unexecuted, so the plan test can EXPLAIN it (findAttemptsOf runs it).
 */
export function attemptsOfQuery(db: Db, brandId: string, orderId: string, livemode: boolean) {
  return db
    .select({
      provider: paymentAttempts.provider,
      result: paymentAttempts.result,
      declineCode: paymentAttempts.declineCode,
      declineClass: paymentAttempts.declineClass,
      providerCode: paymentAttempts.providerCode,
      ruleName: paymentAttempts.ruleName,
      routeReason: paymentAttempts.routeReason,
      transactionId: paymentAttempts.transactionId,
      cardBrand: paymentAttempts.cardBrand,
      cardLast4: paymentAttempts.cardLast4,
      binCountry: paymentAttempts.binCountry,
      createdAt: paymentAttempts.createdAt,
      cascadeIndex: paymentAttempts.cascadeIndex,
    })
    .from(paymentAttempts)
    .where(and(eq(paymentAttempts.brandId, brandId), eq(paymentAttempts.orderId, orderId), eq(paymentAttempts.livemode, livemode)))
    .orderBy(asc(paymentAttempts.createdAt), asc(paymentAttempts.cascadeIndex));
}
export const findAttemptsOf = async (db: Db, brandId: string, orderId: string, livemode: boolean) => attemptsOfQuery(db, brandId, orderId, livemode);
/** The card facts of a charge's approved attempt (its provider and transaction id), by payment_attempts_order_idx; undefined for charges the pay path did not make. */
export async function findApprovedCardOf(db: Db, charge: Pick<OrderRow, "brandId" | "orderId" | "provider" | "transactionId">) {
  const [row] = await db
    .select({ cardBrand: paymentAttempts.cardBrand, binCountry: paymentAttempts.binCountry })
    .from(paymentAttempts)
    .where(
      and(
        eq(paymentAttempts.brandId, charge.brandId),
        eq(paymentAttempts.orderId, charge.orderId),
        eq(paymentAttempts.result, "approved"),
        eq(paymentAttempts.provider, charge.provider),
        eq(paymentAttempts.transactionId, charge.transactionId),
      ),
    )
    .limit(1);
  return row;
}
export type OrderAttemptRow = Awaited<ReturnType<typeof findAttemptsOf>>[number];

/** The events of one checkout (the order, its upsells and refunds), oldest first, and their deliveries. */
export async function findTimelineOf(db: Db, brandId: string, checkoutId: string) {
  const events = await db
    .select({ id: outboxEvents.id, type: outboxEvents.type, payload: outboxEvents.payload, createdAt: outboxEvents.createdAt })
    .from(outboxEvents)
    .where(and(eq(outboxEvents.checkoutId, checkoutId), eq(outboxEvents.brandId, brandId)))
    .orderBy(asc(outboxEvents.createdAt));
  const deliveries =
    events.length === 0
      ? []
      : await db
          .select()
          .from(webhookDeliveries)
          .where(inArray(webhookDeliveries.eventId, events.map((e) => e.id)))
          .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
  return { events, deliveries };
}

// ---- disputes of a charge (docs/orders.md "Disputes"): applied by orders/disputes/record.ts, answered by orders/disputes/answer.ts

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
