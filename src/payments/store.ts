import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { hotStatement, runHot } from "../db/hot.js";
import { checkouts, DEFAULT_BRAND_ID, paymentDeclines } from "../db/schema/index.js";
import type { PaymentProviderType } from "../providers/types.js";

/** Whose payment this is: the checkout found for the orderId, else the default brand (CONTRACT §27). */
export interface OrderContext {
  brandId: string;
  checkoutId: string | null;
  webhookUrl: string | null;
  /** The checkout's amount and currency, when there is a checkout. */
  amountCents: number | null;
  currency: string | null;
  /** The checkout came from the public token generator: demo-mode providers only (CONTRACT §35). */
  demoOnly: boolean;
}

/** The newest checkout for an orderId (the same orderId may exist in two brands; the latest wins). */
export async function orderContextOf(db: Db, where: { orderId: string } | { provider: PaymentProviderType; providerOrderId: string }): Promise<OrderContext> {
  const condition = "orderId" in where ? eq(checkouts.orderId, where.orderId) : and(eq(checkouts.provider, where.provider), eq(checkouts.providerOrderId, where.providerOrderId));
  const [checkout] = await db
    .select({
      brandId: checkouts.brandId,
      checkoutId: checkouts.id,
      webhookUrl: checkouts.webhookUrl,
      amountCents: checkouts.amountCents,
      currency: checkouts.currency,
      demoOnly: sql<boolean>`coalesce((${checkouts.claims}->>'demoOnly')::boolean, false)`,
    })
    .from(checkouts)
    .where(condition)
    .orderBy(desc(checkouts.createdAt))
    .limit(1);
  return checkout ?? { brandId: DEFAULT_BRAND_ID, checkoutId: null, webhookUrl: null, amountCents: null, currency: null, demoOnly: false };
}

/** Declines within the window for the order and for the client address. */
export interface DeclineCounts {
  byOrder: number;
  byAddress: number;
}

// Every payment attempt runs this: both counts in one round trip (a null address counts nothing).
const DECLINE_COUNTS = hotStatement(
  "payment_decline_counts",
  `select (select count(*) from payment_declines where order_id = $1 and created_at > $3)::int as "byOrder",
          (select count(*) from payment_declines where client_address = $2 and created_at > $3)::int as "byAddress"`,
);

export async function countDeclines(db: Db, orderId: string, clientAddress: string | null, since: Date): Promise<DeclineCounts> {
  const [counts] = await runHot<DeclineCounts>(db, DECLINE_COUNTS, [orderId, clientAddress, since]);
  return counts!;
}

export async function insertDecline(tx: Db, decline: typeof paymentDeclines.$inferInsert): Promise<void> {
  await tx.insert(paymentDeclines).values(decline);
}
