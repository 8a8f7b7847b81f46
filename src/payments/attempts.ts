import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import { providerNotAllowed } from "../checkout/errors.js";
import { AppError } from "../lib/errors.js";
import { assertCardAcceptable } from "../providers/demo/cards.js";
import type { PaymentAdapters } from "../providers/registry.js";
import { cardOf } from "../providers/schemas.js";
import type { CardInput, ChargeOutcome, OrderCharge, PaymentProviderType, ProviderCall } from "../providers/types.js";
import { newId } from "../lib/ids.js";
import { chargeOnce, chargeRequestHash } from "./charge-once.js";
import { assertCountsUnderDeclineLimit, assertUnderDeclineLimit, declineWindowStart, paymentFailed, recordDecline, type DeclineCounts } from "./declines.js";
import { openOrderCharge, orderContextOf, releaseOrderCharge } from "./store.js";

export type { OrderContext } from "./store.js";

/**
 * Where a provider verb starts: whose order it is, and that brand's adapter (503 in live mode without
 * credentials); `within(tx)` is that adapter for the calls of a payment attempt's transaction.
 */
export async function resolvePayment<P extends PaymentProviderType>(ctx: Ctx, provider: P, where: Parameters<typeof orderContextOf>[1]) {
  const order = await orderContextOf(ctx.db, where);
  const resolved = await ctx.providers.payment(provider, order.brandId);
  // A checkout of the public token generator never reaches a provider that moves real money (CONTRACT §35).
  if (order.demoOnly && !resolved.adapter.demo) throw providerNotAllowed();
  return { order, ...resolved };
}

/**
 * resolvePayment for a card charge of `request.orderId`, with the order's charge claim and decline
 * counts read in the same round trip (openOrderCharge); for chargeOnce's `opened`. A claim taken for
 * a request that then fails here (provider not allowed or not configured) is let go at once.
 */
export async function resolveCharge<P extends PaymentProviderType>(ctx: Ctx, provider: P, request: { orderId: string }) {
  const claim = { orderId: request.orderId, provider, requestHash: chargeRequestHash(ctx, request), providerKey: newId("chg"), createdAt: new Date(ctx.clock.now()) };
  const { order, held, declineCounts } = await openOrderCharge(ctx.db, claim, { clientAddress: ctx.clientAddress ?? null, since: declineWindowStart(ctx) });
  try {
    const resolved = await ctx.providers.payment(provider, order.brandId);
    if (order.demoOnly && !resolved.adapter.demo) throw providerNotAllowed();
    return { order, ...resolved, opened: { held, providerKey: claim.providerKey, createdAt: claim.createdAt, declineCounts } };
  } catch (error) {
    if (held) await releaseOrderCharge(ctx.db, { brandId: order.brandId, orderId: request.orderId }, claim.providerKey, "delete");
    throw error;
  }
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

export interface PaymentAttempt<T> {
  provider: PaymentProviderType;
  /** The attempt goes through the provider's real adapter (not demo): `livemode` of its payment.failed. */
  livemode: boolean;
  orderId: string;
  /** The decline counts when the caller read them with the order's charge claim (openOrderCharge). */
  declineCounts?: DeclineCounts;
  /** Checked after the decline limit and before any provider call (CONTRACT §25). */
  card?: CardInput;
  /** The provider call, given the database handle a demo adapter keeps its records with (no transaction). */
  charge(db: Db): Promise<T>;
  /** The decline in the result, with what the provider tried to charge; null when not declined. */
  declineOf(result: T): { reason: string; amountCents: number; currency: string } | null;
}

/**
 * Every payment attempt of the provider endpoints: decline limit, card check, provider call, and on a
 * decline the decline record and the outbox event committed together before the 402 is thrown.
 * The provider call holds no database connection while it runs (issue 20): a slow provider would
 * otherwise hold one per payment and starve every other route of the pool. Attempts of one order do
 * not overlap anyway: each runs under the order's charge claim (chargeOnce). The demo ledger records
 * its charge as a provider would, on its own, before the decline is counted.
 */
export async function attemptPayment<T>(ctx: Ctx, attempt: PaymentAttempt<T>): Promise<T> {
  if (attempt.declineCounts) assertCountsUnderDeclineLimit(ctx, attempt.declineCounts);
  else await assertUnderDeclineLimit(ctx, attempt.orderId);
  if (attempt.card) assertCardAcceptable(attempt.card, ctx.clock.now());
  const result = await attempt.charge(ctx.db);
  const decline = attempt.declineOf(result);
  if (decline) {
    await withTransaction(ctx.db, (tx) => recordDecline(ctx, tx, { provider: attempt.provider, livemode: attempt.livemode, orderId: attempt.orderId, ...decline }));
    throw paymentFailed(decline.reason);
  }
  return result;
}

/**
 * The card charge of an order gateway's process-payment (cart_gateway, order_crm_a, order_crm_b): the
 * body names the order and carries the card; charged once (CONTRACT §37) with every attempt check;
 * `charge` is the provider call (given the adapter bound to the attempt's transaction), `reply` the answer.
 */
export async function payOrderByCard<P extends PaymentProviderType, R>(
  ctx: Ctx,
  provider: P,
  body: { orderId: string } & CardInput,
  charge: (adapter: PaymentAdapters[P], card: CardInput, call: ProviderCall) => Promise<OrderCharge>,
  reply: (charge: OrderCharge, transaction: { transactionId: string; paymentMethodToken: string }, demo: boolean) => R,
): Promise<R> {
  const { order, adapter, call, within, opened } = await resolveCharge(ctx, provider, body);
  const card = cardOf(body);
  return chargeOnce(ctx, { provider, owner: order, orderId: body.orderId, request: body, call, opened }, async (call) => {
    // Counts read with a claim held from the start are this attempt's (chargeOnce did not loop).
    const declineCounts = opened.held ? opened.declineCounts : undefined;
    const paid = await attemptPayment(ctx, { provider, livemode: !adapter.demo, orderId: body.orderId, declineCounts, card, charge: (db) => charge(within(db), card, call), declineOf: declineOfCharge });
    return reply(paid, succeededCharge(paid.outcome), adapter.demo);
  });
}
