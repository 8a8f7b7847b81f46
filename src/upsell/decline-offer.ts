import type { Ctx } from "../ctx.js";
import { outboxRows } from "../outbox/events.js";
import { ABANDONED_CLAIM_MS } from "../payments/charge-once.js";
import { answerChanges, decide, eventBase, saveDecided, sessionMetadataFields, type Decided } from "./decide-answer.js";
import { funnelEventFields } from "./funnel/counters.js";
import type { Answer } from "./store.js";
import type { AnswerOfferBody, DeclineOfferResponse } from "./schemas.js";

/**
 * SPEC "Upsell" decline: the offer's downsell, else the next offer, comes next; `upsell.declined` with
 * the change. While a charge of the offer is in progress (accept, pay-with-card), 409 in progress.
 */
export async function declineOffer({ ctx, input }: { ctx: Ctx; input: AnswerOfferBody }): Promise<DeclineOfferResponse> {
  const now = ctx.clock.now();
  const decided = await decide(ctx.db, input.sessionId, input.offerId, "decline", now);
  if ("replay" in decided) return decided.replay as DeclineOfferResponse;
  return saveDecided(ctx.db, decided, "decline", now, (settled) => declinedAnswer(settled, now));
}

/** The answer and the rows of a decline: the result, the session moved on, `upsell.declined`. */
function declinedAnswer(decided: Decided, now: number): { result: DeclineOfferResponse; answer: Answer } {
  const { session, offer, nextOfferId } = decided;
  const at = new Date(now);
  const result: DeclineOfferResponse = { success: true, hasMoreOffers: nextOfferId !== null, nextOfferId };
  const answer: Answer = {
    ...answerChanges(decided, session.totalUpsellCents, { declined: 1 }),
    at,
    over: { abandonedBefore: new Date(now - ABANDONED_CLAIM_MS) },
    result: { sessionId: session.id, offerId: offer.id, decision: "declined", result, createdAt: at },
    events: outboxRows(now, [
      {
        ...eventBase(session),
        type: "upsell.declined",
        data: { sessionId: session.id, orderId: session.orderId, originalOrderId: session.originalOrderId, offerId: offer.id, offerName: offer.name, nextOfferId, ...sessionMetadataFields(decided), ...funnelEventFields(offer), livemode: session.livemode },
      },
    ]),
  };
  return { result, answer };
}
