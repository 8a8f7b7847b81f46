import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import { providerNotAllowed } from "./errors.js";
import { AppError } from "../lib/errors.js";
import { assertCardAcceptable } from "../providers/demo/cards.js";
import type { PaymentAdapters } from "../providers/registry.js";
import { assertExpectedCharge, cardOf, type ExpectedCharge } from "../providers/schemas.js";
import type { CardInput, ChargeOutcome, OrderCharge, PaymentProviderType, ProviderCall } from "../providers/types.js";
import { newId } from "../lib/ids.js";
import { chargeOnce, chargeRequestHash } from "./charge-once.js";
import { assertCountsUnderDeclineLimit, assertUnderDeclineLimit, declineWindowStart, paymentFailed, recordDecline, type DeclineCounts } from "./declines.js";
import { openOrderCharge, orderContextOf, releaseOrderCharge, type OrderContext, type StatedAmount } from "./store.js";

export type { OrderContext } from "./store.js";

/**
 * What a charge of the order must amount to: its initialized checkout's amount and currency. None
 * without a checkout, nor once it is completed (then CONTRACT §37's 409 ALREADY_PAID answers).
 */
export const expectedChargeOf = (order: OrderContext): ExpectedCharge | undefined =>
  order.checkoutId && !order.completed && order.amountCents !== null && order.currency !== null ? { amountCents: order.amountCents, currency: order.currency } : undefined;

/** A charge the request states (its amount and currency) and the request members that carry them. */
export interface StatedCharge extends StatedAmount {
  fields?: { amount: string; currency: string };
}

/**
 * The mode a payment of the order is made in (issue 33): its checkout's stored mode, never re-decided
 * from settings. An orderId without any checkout (a provider endpoint called directly) follows the
 * legacy rule: live when the brand has real credentials for the provider (or PAYMENT_MODE=live).
 */
export async function paymentMode(ctx: Ctx, provider: PaymentProviderType, order: OrderContext): Promise<boolean> {
  if (order.livemode !== null) return order.livemode;
  return ctx.config.paymentMode === "live" || (await ctx.providers.hasLiveCredentials(provider, order.brandId));
}

/**
 * Where a provider verb starts: whose order it is, its mode, and the adapter of that mode (test: the
 * demo one; live: the real one, 409 without credentials); `within(tx)` is that adapter for the calls
 * of a payment attempt's transaction.
 */
export async function resolvePayment<P extends PaymentProviderType>(ctx: Ctx, provider: P, where: Parameters<typeof orderContextOf>[1], stated?: StatedAmount) {
  const order = await orderContextOf(ctx.db, where, stated);
  const livemode = await paymentMode(ctx, provider, order);
  const resolved = await ctx.providers.payment(provider, order.brandId, livemode);
  // A checkout of the public token generator never reaches a provider that moves real money (CONTRACT §35).
  if (order.demoOnly && !resolved.adapter.demo) throw providerNotAllowed();
  return { order, livemode, ...resolved };
}

/**
 * resolvePayment for a card charge of `request.orderId`, with the order's charge claim and decline
 * counts read in the same round trip (openOrderCharge); for chargeOnce's `opened`. The `stated`
 * amount and currency must be the initialized checkout's (read in that same round trip: no extra
 * statement). A claim taken for a request that then fails here (another amount, provider not allowed
 * or not configured) is let go at once.
 */
export async function resolveCharge<P extends PaymentProviderType>(ctx: Ctx, provider: P, request: { orderId: string }, stated?: StatedCharge) {
  const claim = { orderId: request.orderId, provider, requestHash: chargeRequestHash(ctx, request), providerKey: newId("chg"), createdAt: new Date(ctx.clock.now()) };
  const { order, held, declineCounts } = await openOrderCharge(ctx.db, claim, { clientAddress: ctx.clientAddress ?? null, since: declineWindowStart(ctx) }, stated);
  try {
    const livemode = await paymentMode(ctx, provider, order);
    const resolved = await ctx.providers.payment(provider, order.brandId, livemode);
    if (order.demoOnly && !resolved.adapter.demo) throw providerNotAllowed();
    if (stated) assertExpectedCharge(expectedChargeOf(order), stated, stated.fields);
    return { order, livemode, ...resolved, opened: { held, providerKey: claim.providerKey, createdAt: claim.createdAt, declineCounts } };
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
  return result.outcome.status === "declined" ? { reason: result.outcome.reason, providerCode: result.outcome.providerCode, amountCents: result.amountCents, currency: result.currency } : null;
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
  /** The decline in the result (with the provider's own code when it gave one), with what the provider tried to charge; null when not declined. */
  declineOf(result: T): { reason: string; providerCode?: string; amountCents: number; currency: string } | null;
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
    const normalised = await withTransaction(ctx.db, (tx) => recordDecline(ctx, tx, { provider: attempt.provider, livemode: attempt.livemode, orderId: attempt.orderId, card: attempt.card, ...decline }));
    throw paymentFailed(decline.reason, normalised);
  }
  return result;
}

/**
 * The card charge of an order gateway's process-payment (cart_gateway, order_crm_a, order_crm_b): the
 * body names the order and carries the card; charged once (CONTRACT §37) with every attempt check;
 * `charge` is the provider call (given the adapter bound to the attempt's transaction, and the
 * checkout's amount the provider order must have), `reply` the answer. `stated`: the amount the body
 * itself states (order_crm_b's line items), checked as resolveCharge does.
 */
export async function payOrderByCard<P extends PaymentProviderType, R>(
  ctx: Ctx,
  provider: P,
  body: { orderId: string } & CardInput,
  charge: (adapter: PaymentAdapters[P], card: CardInput, call: ProviderCall, expected: ExpectedCharge | undefined) => Promise<OrderCharge>,
  reply: (charge: OrderCharge, transaction: { transactionId: string; paymentMethodToken: string }, demo: boolean) => R,
  stated?: StatedCharge,
): Promise<R> {
  const { order, livemode, adapter, call, within, opened } = await resolveCharge(ctx, provider, body, stated);
  const card = cardOf(body);
  const expected = expectedChargeOf(order);
  return chargeOnce(ctx, { provider, owner: order, orderId: body.orderId, request: body, call, opened }, async (call) => {
    // Counts read with a claim held from the start are this attempt's (chargeOnce did not loop).
    const declineCounts = opened.held ? opened.declineCounts : undefined;
    const paid = await attemptPayment(ctx, { provider, livemode, orderId: body.orderId, declineCounts, card, charge: (db) => charge(within(db), card, call, expected), declineOf: declineOfCharge });
    return reply(paid, succeededCharge(paid.outcome), adapter.demo);
  });
}
