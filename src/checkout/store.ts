import { and, eq, gt, isNull, ne, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { brands, checkouts, commissions, orderLineItems, orders, organizations, providerSettings, shortLinks } from "../db/schema/index.js";

// The checkout feature's queries. Each takes a db handle (client or transaction). The hot reads of
// initialize and complete are prepared statements, one per handle, so PostgreSQL plans them once.

const preparedByDb = new WeakMap<Db, Map<string, unknown>>();

function prepared<T>(db: Db, name: string, build: (db: Db) => T): T {
  let statements = preparedByDb.get(db);
  if (!statements) {
    statements = new Map();
    preparedByDb.set(db, statements);
  }
  let statement = statements.get(name) as T | undefined;
  if (!statement) {
    statement = build(db);
    statements.set(name, statement);
  }
  return statement;
}

export type CheckoutRow = typeof checkouts.$inferSelect;
export type NewCheckout = typeof checkouts.$inferInsert;

/**
 * Initialize's one read: the live brand (not deleted, nor its organization), the payment providers it
 * has enabled (CONTRACT §4) and the status of a checkout it already holds for this orderId.
 */
export async function findBrandForCheckout(db: Db, brandId: string, orderId: string) {
  const statement = prepared(db, "checkout_brand", (d) =>
    d
      .select({
        brandId: brands.id,
        organizationId: brands.organizationId,
        enabledProviders: sql<string[] | null>`(select json_agg(${providerSettings.provider}) from ${providerSettings} where ${providerSettings.brandId} = ${brands.id} and ${providerSettings.enabled})`,
        checkoutId: checkouts.id,
        checkoutStatus: checkouts.status,
      })
      .from(brands)
      .innerJoin(organizations, eq(organizations.id, brands.organizationId))
      .leftJoin(checkouts, and(eq(checkouts.brandId, brands.id), eq(checkouts.orderId, sql.placeholder("orderId"))))
      .where(and(eq(brands.id, sql.placeholder("brandId")), isNull(brands.deletedAt), isNull(organizations.deletedAt)))
      .prepare("checkout_brand"),
  );
  const [row] = await statement.execute({ brandId, orderId });
  return row ?? null;
}

/**
 * Creates the checkout for (brand, orderId), or updates it while it is not completed. No row back
 * means it was completed meanwhile. `created` tells a new checkout from a re-initialized one.
 */
export async function upsertCheckout(tx: Db, values: NewCheckout): Promise<{ id: string; created: boolean } | null> {
  const { id: _id, brandId: _brand, orderId: _order, createdAt: _created, status: _status, ...changes } = values;
  const [row] = await tx
    .insert(checkouts)
    .values(values)
    .onConflictDoUpdate({ target: [checkouts.brandId, checkouts.orderId], set: changes, setWhere: ne(checkouts.status, "completed") })
    .returning({ id: checkouts.id, created: sql<boolean>`(xmax = 0)` });
  return row ?? null;
}

/**
 * Complete's one read: every checkout for the orderId (several brands may share one), each with its
 * organization, its order when completed, and the `failOnCrmError` setting of the CRM in question.
 */
export async function findCompletionCandidates(db: Db, orderId: string, crmProvider: string | null) {
  const statement = prepared(db, "checkout_completion_candidates", (d) =>
    d
      .select({
        checkout: checkouts,
        organizationId: brands.organizationId,
        order: { transactionId: orders.transactionId, provider: orders.provider, amountCents: orders.amountCents, result: orders.result },
        failOnCrmError: sql<unknown>`(select ${providerSettings.publicValues}->'failOnCrmError' from ${providerSettings} where ${providerSettings.brandId} = ${checkouts.brandId} and ${providerSettings.provider} = ${sql.placeholder("crmProvider")})`,
      })
      .from(checkouts)
      .innerJoin(brands, eq(brands.id, checkouts.brandId))
      .leftJoin(orders, eq(orders.checkoutId, checkouts.id))
      .where(eq(checkouts.orderId, sql.placeholder("orderId")))
      .orderBy(sql`${checkouts.updatedAt} desc`)
      .prepare("checkout_completion_candidates"),
  );
  return statement.execute({ orderId, crmProvider });
}
export type CompletionCandidate = Awaited<ReturnType<typeof findCompletionCandidates>>[number];

/**
 * Marks the checkout completed unless it already is. The row lock makes concurrent completions of
 * one checkout wait for each other; exactly one gets the row back (CONTRACT §7).
 */
export async function claimCheckoutForCompletion(tx: Db, checkoutId: string, now: Date): Promise<boolean> {
  const rows = await tx
    .update(checkouts)
    .set({ status: "completed", completedAt: now, updatedAt: now })
    .where(and(eq(checkouts.id, checkoutId), ne(checkouts.status, "completed")))
    .returning({ id: checkouts.id });
  return rows.length === 1;
}

export async function insertOrder(tx: Db, order: typeof orders.$inferInsert, lineItems: Omit<typeof orderLineItems.$inferInsert, "orderRef">[]): Promise<void> {
  await tx.insert(orders).values(order);
  if (lineItems.length > 0) await tx.insert(orderLineItems).values(lineItems.map((item) => ({ ...item, orderRef: order.id })));
}

export async function insertCommission(tx: Db, commission: typeof commissions.$inferInsert): Promise<void> {
  await tx.insert(commissions).values(commission);
}

/** The order a checkout completed into, for replays and conflicts (CONTRACT §7). */
export async function findOrderOfCheckout(db: Db, checkoutId: string) {
  const [row] = await db
    .select({ transactionId: orders.transactionId, provider: orders.provider, amountCents: orders.amountCents, result: orders.result })
    .from(orders)
    .where(eq(orders.checkoutId, checkoutId));
  return row ?? null;
}

export async function findPaymentMethodToken(db: Db, provider: string, transactionId: string) {
  const statement = prepared(db, "checkout_payment_token", (d) =>
    d
      .select({ paymentMethodToken: orders.paymentMethodToken, provider: orders.provider, providerOrderId: orders.providerOrderId })
      .from(orders)
      .where(and(eq(orders.provider, sql.placeholder("provider")), eq(orders.transactionId, sql.placeholder("transactionId"))))
      .limit(1)
      .prepare("checkout_payment_token"),
  );
  const [row] = await statement.execute({ provider, transactionId });
  return row ?? null;
}

export async function insertShortLink(db: Db, link: typeof shortLinks.$inferInsert): Promise<void> {
  await db.insert(shortLinks).values(link);
}

/** The token behind a short link, while it has not expired. */
export async function findShortLinkToken(db: Db, code: string, now: Date): Promise<string | null> {
  const [row] = await db
    .select({ token: shortLinks.token })
    .from(shortLinks)
    .where(and(eq(shortLinks.code, code), gt(shortLinks.expiresAt, now)));
  return row?.token ?? null;
}
