import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { funnelEventFields } from "../funnels/counters.js";
import { ABANDONED_CLAIM_MS, inProgress } from "../payments/charge-once.js";
import { outboxRows } from "../webhooks/events.js";
import { answerChanges, decide, eventBase } from "./answer-offer.js";
import type { AnswerOfferBody, DeclineOfferResponse } from "./schemas.js";
import { saveAnswer } from "./store.js";

/**
 * SPEC "Upsell" decline: the offer's downsell, else the next offer, comes next; `upsell.declined` with
 * the change. While a charge of the offer is in progress (accept, pay-with-card), 409 in progress.
 */
export async function declineOffer({ ctx, input }: { ctx: Ctx; input: AnswerOfferBody }): Promise<DeclineOfferResponse> {
  const now = ctx.clock.now();
  const at = new Date(now);
  return withTransaction(ctx.db, async (tx) => {
    const decided = await decide(tx, input.sessionId, input.offerId, "decline", now);
    if ("replay" in decided) return decided.replay as DeclineOfferResponse;
    const { session, offer, nextOfferId } = decided;
    const result: DeclineOfferResponse = { success: true, hasMoreOffers: nextOfferId !== null, nextOfferId };
    const saved = await saveAnswer(tx, {
      ...answerChanges(decided, session.totalUpsellCents, { declined: 1 }),
      at,
      over: { abandonedBefore: new Date(now - ABANDONED_CLAIM_MS) },
      result: { sessionId: session.id, offerId: offer.id, decision: "declined", result, createdAt: at },
      events: outboxRows(now, [
        {
          ...eventBase(session),
          type: "upsell.declined",
          data: { sessionId: session.id, orderId: session.orderId, originalOrderId: session.originalOrderId, offerId: offer.id, offerName: offer.name, nextOfferId, metadata: session.metadata ?? {}, ...funnelEventFields(offer), livemode: decided.original.paidInDemo !== true },
        },
      ]),
    });
    if (!saved) throw inProgress();
    return result;
  });
}
