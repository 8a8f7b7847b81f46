import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { checkouts, merchantCheckouts, shortLinks } from "../db/schema/index.js";

// The merchant API's queries. Each takes a db handle (client or transaction).

export async function insertMerchantCheckout(db: Db, row: typeof merchantCheckouts.$inferInsert): Promise<void> {
  await db.insert(merchantCheckouts).values(row);
}

/** The brand's API checkout with the payment state of its order (the `checkouts` row, once the buyer opened it). */
export async function findMerchantCheckout(db: Db, brandId: string, id: string) {
  const [row] = await db
    .select({
      id: merchantCheckouts.id,
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
    .where(and(eq(merchantCheckouts.id, id), eq(merchantCheckouts.brandId, brandId)))
    .limit(1);
  return row ?? null;
}

/** The brand's API checkout as its creation answered it: with the token behind its short link. */
export async function findCreatedCheckout(db: Db, brandId: string, id: string) {
  const [row] = await db
    .select({ id: merchantCheckouts.id, orderId: merchantCheckouts.orderId, shortCode: merchantCheckouts.shortCode, token: shortLinks.token, expiresAt: shortLinks.expiresAt, livemode: merchantCheckouts.livemode })
    .from(merchantCheckouts)
    .innerJoin(shortLinks, eq(shortLinks.code, merchantCheckouts.shortCode))
    .where(and(eq(merchantCheckouts.id, id), eq(merchantCheckouts.brandId, brandId)))
    .limit(1);
  return row ?? null;
}
