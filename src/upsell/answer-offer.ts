import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import type { StoredOffer } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { AppError } from "../lib/errors.js";
import { faultPoint } from "../lib/fault-points.js";
import { newId } from "../lib/ids.js";
import { assertCountsUnderDeclineLimit, declineWindowStart, paymentFailed, recordDecline } from "../payments/declines.js";
import { ProviderError, type PaymentProviderType } from "../providers/types.js";
import { outboxRows, type NewEvent } from "../webhooks/events.js";
import { offerAlreadyAnswered, offerNotFound, sessionCompleted, sessionExpired } from "./errors.js";
import { answerOffer, type Answers } from "./machine.js";
import type { AcceptOfferResponse, AnswerOfferBody, DeclineOfferResponse } from "./schemas.js";
import { answersOf, checkAnswerable, flowSteps, statusOf } from "./session.js";
import {
  findSessionForAnswer,
  lockSessionForAnswer,
  releaseOfferResult,
  reserveOfferResult,
  saveAnswer,
  type Answer,
  type SessionForAnswer,
  type UpsellSessionRow,
} from "./store.js";

type Decided = { session: UpsellSessionRow; offer: StoredOffer; answers: Answers; nextOfferId: string | null; completed: boolean; original: SessionForAnswer["original"] };

/**
 * The answer's decision under the session's row lock: replay a repeat of the same answer (CONTRACT §7),
 * refuse the other answer to an answered offer, a completed session, or an offer not (yet) offered.
 */
async function decide(tx: Db, sessionId: string, offerId: string, event: "accept" | "decline", now: number): Promise<{ replay: Record<string, unknown> } | Decided> {
  const found = await lockSessionForAnswer(tx, sessionId, offerId);
  const { session, offer } = checkAnswerable(found?.session ?? null, offerId, now);
  const prior = found!.prior;
  if (prior) {
    if (prior.decision === (event === "accept" ? "accepted" : "declined") && prior.result) return { replay: prior.result };
    throw offerAlreadyAnswered();
  }
  if (session.status === "completed") throw sessionCompleted();
  const outcome = answerOffer({ status: statusOf(session, now), expiresAt: session.expiresAt.getTime(), flow: flowSteps(session.flow), answers: answersOf(session) }, event, offerId, now);
  if (!outcome.ok) {
    if (outcome.reason === "session_expired") throw sessionExpired();
    if (outcome.reason === "offer_not_found") throw offerNotFound();
    if (outcome.reason === "session_closed") throw sessionCompleted();
    throw offerAlreadyAnswered();
  }
  return { session, offer, answers: outcome.answers, nextOfferId: outcome.nextOfferId, completed: outcome.status === "completed", original: found!.original };
}

function eventBase(session: UpsellSessionRow): Pick<NewEvent, "brandId" | "checkoutId" | "webhookUrl"> {
  return { brandId: session.brandId, checkoutId: session.checkoutId, webhookUrl: session.webhookUrl };
}

/**
 * What an answer writes besides its own rows: the session moved on, the answered offer's counters,
 * and the next offer counted as shown.
 */
function answerChanges(decided: Decided, totalUpsellCents: number, stats: Omit<Answer["stats"][number], "offerId">): Pick<Answer, "session" | "changes" | "stats"> {
  const { session, offer, answers, nextOfferId, completed } = decided;
  return {
    session,
    changes: {
      acceptedOffers: [...answers.accepted],
      declinedOffers: [...answers.declined],
      currentStep: answers.accepted.length + answers.declined.length,
      status: completed ? "completed" : "active",
      totalUpsellCents,
    },
    stats: [{ offerId: offer.id, ...stats }, ...(nextOfferId ? [{ offerId: nextOfferId, shown: 1 }] : [])],
  };
}

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

  const at = new Date(now);
  let outcome: { result: AcceptOfferResponse } | { declined: string };
  try {
    outcome = await withTransaction(ctx.db, async (tx) => {
      const decided = await decide(tx, input.sessionId, input.offerId, "accept", now);
      if ("replay" in decided) return { result: decided.replay as AcceptOfferResponse };
      const { session, offer } = decided;
      await reserveOfferResult(tx, session.id, offer.id, at);

      const provider = session.provider as PaymentProviderType;
      const { adapter, call } = await ctx.providers.payment(provider, session.brandId, tx);
      faultPoint(ctx.config, "charge.before-provider");
      const charge = await adapter.chargeSaved(
        { paymentMethodToken: session.paymentMethodToken, amountCents: offer.priceCents, currency: session.currency, orderId: session.orderId, originalOrderId: session.originalOrderId },
        // A real provider dedupes on this key should we die between its charge and our commit.
        { ...call, log: ctx.log, idempotencyKey: `upsell:${session.id}:${offer.id}` },
      );
      faultPoint(ctx.config, "charge.after-provider");
      if (charge.status !== "succeeded") {
        // One click cannot run a 3-D Secure step: for an upsell it is a refusal.
        const reason = charge.status === "declined" ? charge.reason : "authentication_required";
        await releaseOfferResult(tx, session.id, offer.id);
        await recordDecline(ctx, tx, {
          provider,
          orderId: session.orderId,
          reason,
          amountCents: offer.priceCents,
          currency: session.currency,
          owner: eventBase(session),
          details: { originalOrderId: session.originalOrderId, sessionId: session.id, offerId: offer.id },
        });
        return { declined: reason };
      }

      const totalUpsellCents = session.totalUpsellCents + offer.priceCents;
      const result: AcceptOfferResponse = {
        success: true,
        transactionId: charge.transactionId,
        offerAccepted: offer.id,
        amountCharged: offer.priceCents,
        hasMoreOffers: decided.nextOfferId !== null,
        totalUpsellAmount: totalUpsellCents,
      };
      const { original } = decided;
      const orderRef = newId("ord");
      await saveAnswer(tx, {
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
            provider,
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
              provider,
              amount: offer.priceCents,
              currency: session.currency,
              totalUpsellAmount: totalUpsellCents,
              metadata: session.metadata ?? {},
            },
          },
        ]),
      });
      return { result };
    });
  } catch (error) {
    if (error instanceof ProviderError) {
      ctx.log.warn({ provider: session.provider, retryable: error.retryable, err: error.message }, "upsell charge failed");
      throw new AppError("PROVIDER_ERROR", `Payment provider ${session.provider} failed`);
    }
    throw error;
  }
  if ("declined" in outcome) throw paymentFailed(outcome.declined);
  faultPoint(ctx.config, "charge.after-commit");
  return outcome.result;
}

/** SPEC "Upsell" decline: the offer's downsell, else the next offer, comes next; `upsell.declined` with the change. */
export async function declineOffer({ ctx, input }: { ctx: Ctx; input: AnswerOfferBody }): Promise<DeclineOfferResponse> {
  const now = ctx.clock.now();
  const at = new Date(now);
  return withTransaction(ctx.db, async (tx) => {
    const decided = await decide(tx, input.sessionId, input.offerId, "decline", now);
    if ("replay" in decided) return decided.replay as DeclineOfferResponse;
    const { session, offer, nextOfferId } = decided;
    const result: DeclineOfferResponse = { success: true, hasMoreOffers: nextOfferId !== null, nextOfferId };
    await saveAnswer(tx, {
      ...answerChanges(decided, session.totalUpsellCents, { declined: 1 }),
      at,
      result: { sessionId: session.id, offerId: offer.id, decision: "declined", result, createdAt: at },
      events: outboxRows(now, [
        {
          ...eventBase(session),
          type: "upsell.declined",
          data: { sessionId: session.id, orderId: session.orderId, originalOrderId: session.originalOrderId, offerId: offer.id, offerName: offer.name, nextOfferId, metadata: session.metadata ?? {} },
        },
      ]),
    });
    return result;
  });
}
