import { and, asc, count, desc, eq, gte, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { commissionAdjustments, commissions, salespeople, salespersonLoginAttempts, salespersonSessions } from "../db/schema/index.js";

// The salespeople feature's queries; each takes a db handle (client or transaction).

export type SalespersonRow = typeof salespeople.$inferSelect;

/** Inserts unless the organization already has this email; answers whether it inserted. */
export async function insertSalesperson(db: Db, row: typeof salespeople.$inferInsert): Promise<boolean> {
  const inserted = await db.insert(salespeople).values(row).onConflictDoNothing().returning({ id: salespeople.id });
  return inserted.length === 1;
}

export function listSalespeopleOf(db: Db, organizationId: string): Promise<SalespersonRow[]> {
  return db.select().from(salespeople).where(eq(salespeople.organizationId, organizationId)).orderBy(asc(salespeople.createdAt), asc(salespeople.id));
}

export async function findSalespersonInOrganization(db: Db, organizationId: string, id: string): Promise<SalespersonRow | undefined> {
  const [row] = await db.select().from(salespeople).where(and(eq(salespeople.organizationId, organizationId), eq(salespeople.id, id)));
  return row;
}

/** Email is unique per organization only, so one email can name a few accounts (oldest first). */
export function findSalespeopleByEmail(db: Db, email: string, max: number): Promise<SalespersonRow[]> {
  return db.select().from(salespeople).where(eq(salespeople.email, email)).orderBy(asc(salespeople.createdAt), asc(salespeople.id)).limit(max);
}

export async function countRecentPortalFailures(db: Db, email: string, since: Date): Promise<number> {
  const [row] = await db
    .select({ failures: count() })
    .from(salespersonLoginAttempts)
    .where(and(eq(salespersonLoginAttempts.email, email), eq(salespersonLoginAttempts.success, false), gte(salespersonLoginAttempts.createdAt, since)));
  return row.failures;
}

export async function recordPortalAttempt(db: Db, row: typeof salespersonLoginAttempts.$inferInsert): Promise<void> {
  await db.insert(salespersonLoginAttempts).values(row);
}

export async function insertPortalSession(db: Db, row: typeof salespersonSessions.$inferInsert): Promise<void> {
  await db.insert(salespersonSessions).values(row);
}

export async function findPortalSession(db: Db, idHash: string) {
  const [row] = await db
    .select({ session: salespersonSessions, salesperson: salespeople })
    .from(salespersonSessions)
    .innerJoin(salespeople, eq(salespeople.id, salespersonSessions.salespersonId))
    .where(eq(salespersonSessions.idHash, idHash));
  return row;
}

export async function touchPortalSession(db: Db, idHash: string, at: Date): Promise<void> {
  await db.update(salespersonSessions).set({ lastSeenAt: at }).where(eq(salespersonSessions.idHash, idHash));
}

export async function deletePortalSession(db: Db, idHash: string): Promise<void> {
  await db.delete(salespersonSessions).where(eq(salespersonSessions.idHash, idHash));
}

const sumWhere = (status: string | null) =>
  (status === null ? sql<number>`coalesce(sum(${commissions.commissionAmountCents}), 0)` : sql<number>`coalesce(sum(${commissions.commissionAmountCents}) filter (where ${commissions.status} = ${status}), 0)`).mapWith(Number);

/** CONTRACT §32/§33: sums of commissionAmount in cents, one row per currency (by code); total and count over all, the others by status. */
export function portalTotalsByCurrency(db: Db, salesperson: { id: string; organizationId: string }, livemode: boolean) {
  return db
    .select({ currency: commissions.currency, total: sumWhere(null), pending: sumWhere("pending"), approved: sumWhere("approved"), paid: sumWhere("paid"), count: count() })
    .from(commissions)
    .where(and(eq(commissions.organizationId, salesperson.organizationId), eq(commissions.salespersonId, salesperson.id), eq(commissions.livemode, livemode)))
    .groupBy(commissions.currency)
    .orderBy(commissions.currency);
}

// A clawback has the mode of the commission it takes from (CONTRACT §39).
const ofSalesperson = (salesperson: { id: string; organizationId: string }, livemode: boolean) =>
  and(
    eq(commissionAdjustments.organizationId, salesperson.organizationId),
    eq(commissionAdjustments.salespersonId, salesperson.id),
    eq(commissionAdjustments.kind, "clawback"),
    sql`exists (select 1 from ${commissions} where ${commissions.id} = ${commissionAdjustments.commissionId} and ${commissions.livemode} = ${livemode})`,
  );

/** The salesperson's clawbacks per currency: all of them, and those no payout netted yet (≤ 0 each). */
export function portalClawbacksByCurrency(db: Db, salesperson: { id: string; organizationId: string }, livemode: boolean) {
  const a = commissionAdjustments;
  return db
    .select({
      currency: a.currency,
      clawedBack: sql<number>`coalesce(sum(${a.amountCents}), 0)`.mapWith(Number),
      clawbackOpen: sql<number>`coalesce(sum(${a.amountCents}) filter (where ${a.nettedAt} is null), 0)`.mapWith(Number),
    })
    .from(a)
    .where(ofSalesperson(salesperson, livemode))
    .groupBy(a.currency);
}

export function portalClawbackLines(db: Db, salesperson: { id: string; organizationId: string }, livemode: boolean, limit: number) {
  return db.select().from(commissionAdjustments).where(ofSalesperson(salesperson, livemode)).orderBy(desc(commissionAdjustments.createdAt), desc(commissionAdjustments.id)).limit(limit);
}

/** The salesperson's sales of one mode (a commission row each), newest first (issue 36 item 14). */
export function portalSaleLines(db: Db, salesperson: { id: string; organizationId: string }, livemode: boolean, limit: number) {
  return db
    .select({
      orderId: commissions.orderId,
      createdAt: commissions.createdAt,
      orderAmountCents: commissions.orderAmountCents,
      commissionAmountCents: commissions.commissionAmountCents,
      currency: commissions.currency,
      status: commissions.status,
    })
    .from(commissions)
    .where(and(eq(commissions.organizationId, salesperson.organizationId), eq(commissions.salespersonId, salesperson.id), eq(commissions.livemode, livemode)))
    .orderBy(desc(commissions.createdAt), desc(commissions.id))
    .limit(limit);
}
