import { and, desc, eq, or } from "drizzle-orm";
import { hotStatement, runHot } from "../db/hot.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { checkouts, DEFAULT_BRAND_ID, paymentDeclines } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { AppError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { enqueueEvents } from "../webhooks/events.js";
import { assertCardAcceptable } from "./demo/cards.js";
import type { CardInput, ChargeOutcome, PaymentProviderType } from "./types.js";

/** Whose payment this is: the checkout found for the orderId, else the default brand (CONTRACT §27). */
export interface OrderContext {
  brandId: string;
  checkoutId: string | null;
  webhookUrl: string | null;
  /** The checkout's amount and currency, when there is a checkout. */
  amountCents: number | null;
  currency: string | null;
}

/** The newest checkout for an orderId (the same orderId may exist in two brands; the latest wins). */
export async function orderContextOf(db: Db, where: { orderId: string } | { provider: PaymentProviderType; providerOrderId: string }): Promise<OrderContext> {
  const condition = "orderId" in where ? eq(checkouts.orderId, where.orderId) : and(eq(checkouts.provider, where.provider), eq(checkouts.providerOrderId, where.providerOrderId));
  const [checkout] = await db
    .select({ brandId: checkouts.brandId, checkoutId: checkouts.id, webhookUrl: checkouts.webhookUrl, amountCents: checkouts.amountCents, currency: checkouts.currency })
    .from(checkouts)
    .where(condition)
    .orderBy(desc(checkouts.createdAt))
    .limit(1);
  return checkout ?? { brandId: DEFAULT_BRAND_ID, checkoutId: null, webhookUrl: null, amountCents: null, currency: null };
}

/** Where a provider verb starts: whose order it is, and that brand's adapter (503 in live mode without credentials). */
export async function resolvePayment<P extends PaymentProviderType>(ctx: Ctx, provider: P, where: Parameters<typeof orderContextOf>[1]) {
  const order = await orderContextOf(ctx.db, where);
  const { adapter, call } = await ctx.providers.payment(provider, order.brandId);
  return { order, adapter, call };
}

/** A charge the adapter reports as neither succeeded nor declined where only those two can happen. */
export function succeededCharge(outcome: ChargeOutcome): { transactionId: string; paymentMethodToken: string } {
  if (outcome.status !== "succeeded") throw new AppError("PROVIDER_ERROR", "Unexpected answer from the payment provider");
  return { transactionId: outcome.transactionId, paymentMethodToken: outcome.paymentMethodToken ?? "" };
}

/** declineOf for provider calls that answer a ChargeOutcome with what they charged. */
export function declineOfCharge<T extends { outcome: ChargeOutcome; amountCents: number; currency: string }>(result: T) {
  return result.outcome.status === "declined" ? { reason: result.outcome.reason, amountCents: result.amountCents, currency: result.currency } : null;
}

export const paymentFailed = (reason: string) => new AppError("PAYMENT_FAILED", `Payment failed: ${reason}`, reason);

// Every payment attempt runs this: both counts in one round trip (a null address counts nothing).
const DECLINE_COUNTS = hotStatement(
  "payment_decline_counts",
  `select (select count(*) from payment_declines where order_id = $1 and created_at > $3)::int as "byOrder",
          (select count(*) from payment_declines where client_address = $2 and created_at > $3)::int as "byAddress"`,
);

/**
 * CONTRACT §21, §33: after `declineLimit` declines within `declineWindowSeconds` for this orderId or
 * this client address, payment attempts answer 429 before any provider is called.
 */
export async function assertUnderDeclineLimit(ctx: Ctx, orderId: string): Promise<void> {
  const [counts] = await runHot<DeclineCounts>(ctx.db, DECLINE_COUNTS, [orderId, ctx.clientAddress ?? null, declineWindowStart(ctx)]);
  assertCountsUnderDeclineLimit(ctx, counts!);
}

/** Declines within the window for the order and for the client address. */
export interface DeclineCounts {
  byOrder: number;
  byAddress: number;
}

/** The start of the window declines are counted in. */
export const declineWindowStart = (ctx: Pick<Ctx, "clock" | "config">) => new Date(ctx.clock.now() - ctx.config.declineWindowSeconds * 1000);

/** The limit check of assertUnderDeclineLimit, for counts a caller read along with its own row. */
export function assertCountsUnderDeclineLimit(ctx: Pick<Ctx, "config">, counts: DeclineCounts): void {
  if (counts.byOrder >= ctx.config.declineLimit || counts.byAddress >= ctx.config.declineLimit) {
    throw new AppError("TOO_MANY_DECLINES", "Too many declined payments, try again later");
  }
}

export interface Decline {
  provider: PaymentProviderType;
  orderId: string;
  reason: string;
  amountCents: number;
  currency: string;
}

/** Counts the decline (§21) and emits `payment.failed` (§25) in the caller's transaction. Never card data. */
export async function recordDecline(ctx: Ctx, tx: Db, decline: Decline): Promise<void> {
  const now = ctx.clock.now();
  await tx.insert(paymentDeclines).values({
    id: newId("dcl"),
    orderId: decline.orderId,
    clientAddress: ctx.clientAddress ?? null,
    reason: decline.reason,
    createdAt: new Date(now),
  });
  const order = await orderContextOf(tx, { orderId: decline.orderId });
  await enqueueEvents(tx, now, [
    {
      brandId: order.brandId,
      type: "payment.failed",
      checkoutId: order.checkoutId,
      webhookUrl: order.webhookUrl,
      data: { orderId: decline.orderId, provider: decline.provider, reason: decline.reason, amount: decline.amountCents, currency: decline.currency },
    },
  ]);
}

export interface PaymentAttempt<T> {
  provider: PaymentProviderType;
  orderId: string;
  /** Checked after the decline limit and before any provider call (CONTRACT §25). */
  card?: CardInput;
  /** The provider call, given the transaction that also records a decline. */
  charge(tx: Db): Promise<T>;
  /** The decline in the result, with what the provider tried to charge; null when not declined. */
  declineOf(result: T): { reason: string; amountCents: number; currency: string } | null;
}

/**
 * Every payment attempt of the provider endpoints: decline limit, card check, provider call, and on a
 * decline the decline record, the outbox event and the provider's own failed charge committed
 * together before the 402 is thrown.
 */
export async function attemptPayment<T>(ctx: Ctx, attempt: PaymentAttempt<T>): Promise<T> {
  await assertUnderDeclineLimit(ctx, attempt.orderId);
  if (attempt.card) assertCardAcceptable(attempt.card, ctx.clock.now());
  const { result, decline } = await withTransaction(ctx.db, async (tx) => {
    const result = await attempt.charge(tx);
    const decline = attempt.declineOf(result);
    if (decline) await recordDecline(ctx, tx, { provider: attempt.provider, orderId: attempt.orderId, ...decline });
    return { result, decline };
  });
  if (decline) throw paymentFailed(decline.reason);
  return result;
}
