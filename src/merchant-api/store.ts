import { and, asc, eq, isNull, or, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { checkouts, merchantCheckouts, shortLinks } from "../db/schema/index.js";

// The merchant API's queries. Each takes a db handle (client or transaction).

export async function insertMerchantCheckout(db: Db, row: typeof merchantCheckouts.$inferInsert): Promise<void> {
  await db.insert(merchantCheckouts).values(row);
}

/** A row's checkout id: its own id stands in on a row the previous release wrote (schema comment). */
const CHECKOUT_ID_OF = sql<string>`coalesce(${merchantCheckouts.checkoutId}, ${merchantCheckouts.id})`;

/** The id the brand's first API checkout for this orderId was answered with (issue 33: one id per checkout), or null. */
export async function findApiCheckoutId(db: Db, brandId: string, orderId: string): Promise<string | null> {
  const [row] = await db
    .select({ checkoutId: CHECKOUT_ID_OF })
    .from(merchantCheckouts)
    .where(and(eq(merchantCheckouts.brandId, brandId), eq(merchantCheckouts.orderId, orderId)))
    .orderBy(asc(merchantCheckouts.createdAt), asc(merchantCheckouts.id))
    .limit(1);
  return row?.checkoutId ?? null;
}

/**
 * The brand's API checkout by the id it was answered with: every link made for it (oldest first,
 * usually one) with the payment state of its `checkouts` row, once the buyer opened it.
 */
export async function findMerchantCheckoutLinks(db: Db, brandId: string, checkoutId: string, livemode: boolean) {
  return db
    .select({
      orderId: merchantCheckouts.orderId,
      amountCents: merchantCheckouts.amountCents,
      currency: merchantCheckouts.currency,
      claimedProvider: merchantCheckouts.provider,
      createdAt: merchantCheckouts.createdAt,
      expiresAt: merchantCheckouts.expiresAt,
      livemode: merchantCheckouts.livemode,
      checkoutStatus: checkouts.status,
      checkoutProvider: checkouts.provider,
      checkoutAmountCents: checkouts.amountCents,
      checkoutCurrency: checkouts.currency,
      completedAt: checkouts.completedAt,
    })
    .from(merchantCheckouts)
    .leftJoin(checkouts, and(eq(checkouts.brandId, merchantCheckouts.brandId), eq(checkouts.orderId, merchantCheckouts.orderId)))
    .where(and(or(eq(merchantCheckouts.checkoutId, checkoutId), and(isNull(merchantCheckouts.checkoutId), eq(merchantCheckouts.id, checkoutId))), eq(merchantCheckouts.brandId, brandId), eq(merchantCheckouts.livemode, livemode)))
    .orderBy(asc(merchantCheckouts.createdAt), asc(merchantCheckouts.id));
}

/** A checkout of the brand by the id its events carry, whatever token opened it (a signing key's, a payment link's…). */
export async function findBrandCheckout(db: Db, brandId: string, id: string, livemode: boolean) {
  const [row] = await db
    .select({
      id: checkouts.id,
      orderId: checkouts.orderId,
      status: checkouts.status,
      amountCents: checkouts.amountCents,
      currency: checkouts.currency,
      provider: checkouts.provider,
      createdAt: checkouts.createdAt,
      completedAt: checkouts.completedAt,
      tokenExpiresAt: checkouts.tokenExpiresAt,
      livemode: checkouts.livemode,
    })
    .from(checkouts)
    .where(and(eq(checkouts.id, id), eq(checkouts.brandId, brandId), eq(checkouts.livemode, livemode)))
    .limit(1);
  return row ?? null;
}

/** The brand's API checkout link as its creation answered it (by the row's own id): with the token behind its short link. */
export async function findCreatedCheckout(db: Db, brandId: string, id: string) {
  const [row] = await db
    .select({ id: CHECKOUT_ID_OF, orderId: merchantCheckouts.orderId, shortCode: merchantCheckouts.shortCode, token: shortLinks.token, expiresAt: shortLinks.expiresAt, livemode: merchantCheckouts.livemode })
    .from(merchantCheckouts)
    .innerJoin(shortLinks, eq(shortLinks.code, merchantCheckouts.shortCode))
    .where(and(eq(merchantCheckouts.id, id), eq(merchantCheckouts.brandId, brandId)))
    .limit(1);
  return row ?? null;
}
