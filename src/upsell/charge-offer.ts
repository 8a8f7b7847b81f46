import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import { AppError } from "../lib/errors.js";
import { faultPoint } from "../lib/fault-points.js";
import { newId } from "../lib/ids.js";
import { outboxRows } from "../outbox/events.js";
import { ABANDONED_CLAIM_MS, claimOrWait } from "../payments/charge-once.js";
import { normaliseDecline } from "../payments/decline-codes.js";
import { paymentFailed, recordDecline, type Decline } from "../payments/declines.js";
import { ProviderError, type ChargeOutcome, type PaymentProviderType } from "../providers/types.js";
import { answerChanges, eventBase, saveDecided, sessionMetadataFields, type Decided } from "./decide-answer.js";
import { offerAlreadyAnswered } from "./errors.js";
import { funnelEventFields } from "./funnel/counters.js";
import type { AcceptOfferResponse } from "./schemas.js";
import { abandonOfferClaim, claimOffer, findOfferResult, markOfferRefused, type Answer, type OfferClaim } from "./store.js";

/** A charge of an offer: the one-click accept's (saved method) or pay-with-card's (another card). */
export interface OfferCharge {
  /** The decision on the session as read before the charge (decideOn): the session and the offer. */
  decided: Decided;
  /** The request's time: its decision's and its answer's. */
  now: number;
  /** The provider idempotency key of a new claim; a claim taken over keeps its own. */
  chargeKey: string;
  /** The provider's charge of the offer with the claim's key. */
  charge(idempotencyKey: string): Promise<ChargeOutcome>;
  /** The adapter is a demo one: no real money moves. */
  paidInDemo: boolean;
  /** Pay-with-card's card, for its decline's fingerprint (issue 36 item 7); none for a saved method. */
  card?: { cardNumber: string };
  /** The log line of a provider failure. */
  failure: string;
}

/**
 * CONTRACT §7 for the verbs that charge an offer, with no database connection held while the provider
 * answers (issue 20, docs/performance.md). The offer's row in upsell_offer_results is the claim: taken
 * in one statement (one winner across processes), then the provider is called with the claim's key,
 * then the answer is saved in one statement, only over this claim and the session as read (saveDecided).
 * A repeat of the offer's charge waits for the claim's answer (replayed when accepted; a refusal
 * leaves the offer open, and the repeat charges again) up to WAIT_FOR_FIRST_MS, then 409 in progress
 * (claimOrWait).
 * A claim older than ABANDONED_CLAIM_MS belongs to a request that died: the next charge of the same
 * kind takes it over and sends the same key, so a provider that charged answers that charge again.
 */
export async function chargeOfferOnce(ctx: Ctx, attempt: OfferCharge): Promise<AcceptOfferResponse> {
  const { session, offer } = attempt.decided;
  let abandonedBefore: Date; // this turn's: a claim older was the claim statement's to take over
  return claimOrWait(ctx, {
    claim: async () => {
      const now = ctx.clock.now();
      abandonedBefore = new Date(now - ABANDONED_CLAIM_MS);
      const claim = await claimOffer(ctx.db, session.id, offer.id, attempt.chargeKey, new Date(now), abandonedBefore);
      return claim && { answer: await chargeClaimed(ctx, attempt, claim) };
    },
    read: async () => {
      const row = await findOfferResult(ctx.db, session.id, offer.id);
      if (row?.decision === "accepted" && row.result) return { answer: row.result as AcceptOfferResponse };
      if (row?.decision === "declined") throw offerAlreadyAnswered();
      // An abandoned claim this request could not take over is another kind of charge's: no use waiting.
      if (row?.decision === "pending") return row.createdAt < abandonedBefore ? "stuck" : "running";
      return "released"; // refused: this request claims it next
    },
  });
}

/** The claim's charge and its answer: accepted (saved with the claim), refused (402), or unknown (502). */
async function chargeClaimed(ctx: Ctx, attempt: OfferCharge, claim: OfferClaim): Promise<AcceptOfferResponse> {
  const { decided, now } = attempt;
  const { session, offer } = decided;
  faultPoint(ctx.config, "charge.before-provider");
  let charge: ChargeOutcome;
  try {
    charge = await attempt.charge(claim.chargeKey);
  } catch (error) {
    await abandonOfferClaim(ctx.db, session.id, offer.id, claim);
    if (!(error instanceof ProviderError)) throw error;
    ctx.log.warn({ provider: session.provider, retryable: error.retryable, err: error.message }, attempt.failure);
    // The cause names the provider for /metrics (checkout_provider_errors_total).
    throw Object.assign(new AppError("PROVIDER_ERROR", `Payment provider ${session.provider} failed`), { cause: error });
  }
  faultPoint(ctx.config, "charge.after-provider");
  if (charge.status !== "succeeded") {
    // One click cannot run a 3-D Secure step: for an upsell it is a refusal.
    const reason = charge.status === "declined" ? charge.reason : "authentication_required";
    const providerCode = charge.status === "declined" ? charge.providerCode : undefined;
    await withTransaction(ctx.db, (tx) => recordRefusal(ctx, tx, decided, claim, { reason, providerCode, card: attempt.card }, decided.session.livemode));
    throw paymentFailed(reason, normaliseDecline(decided.session.provider as PaymentProviderType, { reason, providerCode }));
  }
  // Saved over the session as read before the charge; decided again should another offer's answer have landed meanwhile.
  const result = await saveDecided(ctx.db, decided, "accept", now, (settled) => acceptedAnswer(settled, charge, claim, attempt.paidInDemo, now));
  faultPoint(ctx.config, "charge.after-commit");
  return result;
}

/**
 * A refused charge: the offer stays open (marked refused), the decline counts toward the limit,
 * `payment.failed` goes out. Nothing when the claim was taken over: its new holder answers the offer.
 */
async function recordRefusal(ctx: Ctx, tx: Db, decided: Decided, claim: OfferClaim, refusal: Pick<Decline, "reason" | "providerCode" | "card">, livemode: boolean): Promise<void> {
  const { session, offer } = decided;
  if (!(await markOfferRefused(tx, session.id, offer.id, claim))) return;
  await recordDecline(ctx, tx, {
    provider: session.provider as PaymentProviderType,
    livemode,
    orderId: session.orderId,
    ...refusal,
    amountCents: offer.priceCents,
    currency: session.currency,
    owner: { ...eventBase(session), ...sessionMetadataFields(decided) },
    details: { originalOrderId: session.originalOrderId, sessionId: session.id, offerId: offer.id },
  });
}

/** The answer and the rows of a successful charge: the upsell order and its line item, the result, `upsell.accepted`. */
function acceptedAnswer(decided: Decided, charge: Extract<ChargeOutcome, { status: "succeeded" }>, claim: OfferClaim, paidInDemo: boolean, now: number): { result: AcceptOfferResponse; answer: Answer } {
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
    over: { claim },
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
        livemode: session.livemode,
        result,
        createdAt: at,
        // The checkout's metadata follows its upsell orders (issue 33): refund events of this charge carry it.
        metadata: original.metadata ?? {},
      },
      lineItem: { id: newId("oli"), orderRef, itemId: offer.id, name: offer.name, quantity: 1, unitPriceCents: offer.priceCents, sku: null },
    },
    result: { sessionId: session.id, offerId: offer.id, decision: "accepted", transactionId: charge.transactionId, amountCents: offer.priceCents, orderRef, result, chargeKey: claim.chargeKey, createdAt: at },
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
          ...sessionMetadataFields(decided),
          ...funnelEventFields(offer),
          livemode: session.livemode,
        },
      },
    ]),
  };
  return { result, answer };
}
