import { and, eq, or } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { checkouts, orders } from "../db/schema/index.js";
import type { PaymentStatus, ProviderNotification } from "../providers/webhook-scheme-kit.js";

export interface NotifiedCheckout {
  id: string;
  brandId: string;
}

/**
 * The checkout a provider notification is about: the one with its order id (in `brandId` when the
 * brand is known). None, or more than one, is no match: nothing is changed then. `testOnly`: a sandbox (test settings) notification, about test checkouts only.
 */
export async function checkoutOfNotification(tx: Db, event: ProviderNotification, brandId: string | undefined, testOnly = false): Promise<NotifiedCheckout | null> {
  if (!event.status || !event.orderId) return null;
  const matches = await tx
    .select({ id: checkouts.id, brandId: checkouts.brandId })
    .from(checkouts)
    .where(and(eq(checkouts.orderId, event.orderId), brandId ? eq(checkouts.brandId, brandId) : undefined, testOnly ? eq(checkouts.livemode, false) : undefined))
    .limit(2);
  return matches.length === 1 ? matches[0]! : null;
}

/** A verified provider notification's payment status, on the checkout and its orders (or the order with its transaction). */
export async function applyPaymentStatus(tx: Db, checkout: NotifiedCheckout, paymentStatus: PaymentStatus, transactionId: string | undefined, at: Date): Promise<void> {
  await tx.update(checkouts).set({ paymentStatus, updatedAt: at }).where(eq(checkouts.id, checkout.id));
  await tx
    .update(orders)
    .set({ paymentStatus })
    .where(and(eq(orders.brandId, checkout.brandId), transactionId ? or(eq(orders.checkoutId, checkout.id), eq(orders.transactionId, transactionId)) : eq(orders.checkoutId, checkout.id)));
}
