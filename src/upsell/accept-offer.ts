import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import type { StoredOffer } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { AppError } from "../lib/errors.js";
import { faultPoint } from "../lib/fault-points.js";
import { newId } from "../lib/ids.js";
import { assertCountsUnderDeclineLimit, declineWindowStart, paymentFailed, recordDecline } from "../payments/declines.js";
import { ProviderError, type ChargeOutcome, type PaymentProviderType } from "../providers/types.js";
import { funnelEventFields } from "../funnels/counters.js";
import { outboxRows } from "../webhooks/events.js";
import { answerChanges, decide, eventBase, type Decided } from "./answer-offer.js";
import type { AcceptOfferResponse, AnswerOfferBody } from "./schemas.js";
import { checkAnswerable } from "./session.js";
import { findSessionForAnswer, markOfferRefused, reserveOfferResult, saveAnswer, type Answer, type UpsellSessionRow } from "./store.js";

/**
 * SPEC "Upsell" accept: charges the offer's price fixed at creation (CONTRACT §20) to the saved
 * method, through the original order's provider, exactly once (§7): under the session's row lock the
 * (session, offer) row is reserved, the provider charged with an idempotency key, and the order,
 * answer, session change and `upsell.accepted` committed together. A refused charge commits only the
 * decline and `payment.failed`, leaves the offer open, and answers 402.
 */
export async function acceptOffer({ ctx, input }: { ctx: Ctx; input: AnswerOfferBody }): Promise<AcceptOfferResponse> {
  const now = ctx.clock.now();
  // Cheap checks and the replay before the decline limit, so a repeat is never refused for it.
  const { found, declines } = await findSessionForAnswer(ctx.db, input.sessionId, input.offerId, { clientAddress: ctx.clientAddress ?? null, since: declineWindowStart(ctx) });
  const { session } = checkAnswerable(found?.session ?? null, input.offerId, now);
  if (found!.prior?.decision === "accepted" && found!.prior.result) return found!.prior.result as AcceptOfferResponse;
  assertCountsUnderDeclineLimit(ctx, declines);

  let outcome: { result: AcceptOfferResponse } | { declined: string };
  try {
    outcome = await withTransaction(ctx.db, async (tx) => {
      const decided = await decide(tx, input.sessionId, input.offerId, "accept", now);
      if ("replay" in decided) return { result: decided.replay as AcceptOfferResponse };
      await reserveOfferResult(tx, decided.session.id, decided.offer.id, new Date(now));
      const { charge, paidInDemo } = await chargeOffer(ctx, tx, decided.session, decided.offer);
      if (charge.status !== "succeeded") {
        // One click cannot run a 3-D Secure step: for an upsell it is a refusal.
        const reason = charge.status === "declined" ? charge.reason : "authentication_required";
        await recordRefusal(ctx, tx, decided, reason, !paidInDemo);
        return { declined: reason };
      }
      const accepted = acceptedAnswer(decided, charge, paidInDemo, now);
      await saveAnswer(tx, accepted.answer);
      return { result: accepted.result };
    });
  } catch (error) {
    if (error instanceof ProviderError) {
      ctx.log.warn({ provider: session.provider, retryable: error.retryable, err: error.message }, "upsell charge failed");
      // The cause names the provider for /metrics (checkout_provider_errors_total).
      throw Object.assign(new AppError("PROVIDER_ERROR", `Payment provider ${session.provider} failed`), { cause: error });
    }
    throw error;
  }
  if ("declined" in outcome) throw paymentFailed(outcome.declined);
  faultPoint(ctx.config, "charge.after-commit");
  return outcome.result;
}

/** The one-click charge of the saved method, inside the transaction that reserved the offer; `paidInDemo` when no real money moved. */
async function chargeOffer(ctx: Ctx, tx: Db, session: UpsellSessionRow, offer: StoredOffer): Promise<{ charge: ChargeOutcome; paidInDemo: boolean }> {
  const { adapter, call } = await ctx.providers.payment(session.provider as PaymentProviderType, session.brandId, tx);
  faultPoint(ctx.config, "charge.before-provider");
  const charge = await adapter.chargeSaved(
    { paymentMethodToken: session.paymentMethodToken, amountCents: offer.priceCents, currency: session.currency, orderId: session.orderId, originalOrderId: session.originalOrderId },
    // A real provider dedupes on this key should we die between its charge and our commit.
    { ...call, log: ctx.log, idempotencyKey: `upsell:${session.id}:${offer.id}` },
  );
  faultPoint(ctx.config, "charge.after-provider");
  return { charge, paidInDemo: adapter.demo };
}

/** A refused charge: the offer stays open (marked refused), the decline counts toward the limit, `payment.failed` goes out. */
export async function recordRefusal(ctx: Ctx, tx: Db, { session, offer }: Decided, reason: string, livemode: boolean): Promise<void> {
  await markOfferRefused(tx, session.id, offer.id);
  await recordDecline(ctx, tx, {
    provider: session.provider as PaymentProviderType,
    livemode,
    orderId: session.orderId,
    reason,
    amountCents: offer.priceCents,
    currency: session.currency,
    owner: eventBase(session),
    details: { originalOrderId: session.originalOrderId, sessionId: session.id, offerId: offer.id },
  });
}

/** The answer and the rows of a successful charge: the upsell order and its line item, the result, `upsell.accepted`. */
export function acceptedAnswer(decided: Decided, charge: Extract<ChargeOutcome, { status: "succeeded" }>, paidInDemo: boolean, now: number): { result: AcceptOfferResponse; answer: Answer } {
  const { session, offer, original } = decided;
  const at = new Date(now);
  const totalUpsellCents = session.totalUpsellCents + offer.priceCents;
  const result: AcceptOfferResponse = {
    success: true,
    transactionId: charge.transactionId,
    offerAccepted: offer.id,
    amountCharged: offer.priceCents,
    hasMoreOffers: decided.nextOfferId !== null,
    totalUpsellAmount: totalUpsellCents,
  };
  const orderRef = newId("ord");
  const answer: Answer = {
    ...answerChanges(decided, totalUpsellCents, { accepted: 1, revenueCents: offer.priceCents }),
    at,
    order: {
      row: {
        id: orderRef,
        brandId: session.brandId,
        kind: "upsell",
        parentOrderId: session.originalOrderRef,
        orderId: session.orderId,
        transactionId: charge.transactionId,
        provider: session.provider,
        providerOrderId: charge.providerOrderId ?? null,
        amountCents: offer.priceCents,
        currency: session.currency,
        customerEmail: session.customerEmail,
        customerName: original.customerName ?? "",
        customer: original.customer,
        billingAddress: original.billingAddress,
        shippingAddress: original.shippingAddress,
        // CONTRACT §8: the saved method stays bound to the original order; an upsell order issues none.
        paymentMethodToken: null,
        paidInDemo,
        result,
        createdAt: at,
      },
      lineItem: { id: newId("oli"), orderRef, itemId: offer.id, name: offer.name, quantity: 1, unitPriceCents: offer.priceCents, sku: null },
    },
    result: { sessionId: session.id, offerId: offer.id, decision: "accepted", transactionId: charge.transactionId, amountCents: offer.priceCents, orderRef, result, createdAt: at },
    events: outboxRows(now, [
      {
        ...eventBase(session),
        type: "upsell.accepted",
        data: {
          sessionId: session.id,
          orderId: session.orderId,
          originalOrderId: session.originalOrderId,
          offerId: offer.id,
          offerName: offer.name,
          transactionId: charge.transactionId,
          provider: session.provider,
          amount: offer.priceCents,
          currency: session.currency,
          totalUpsellAmount: totalUpsellCents,
          metadata: session.metadata ?? {},
          ...funnelEventFields(offer),
          livemode: !paidInDemo,
        },
      },
    ]),
  };
  return { result, answer };
}
