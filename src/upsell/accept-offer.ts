import type { Ctx } from "../ctx.js";
import { assertCountsUnderDeclineLimit, declineWindowStart } from "../payments/declines.js";
import type { PaymentProviderType } from "../providers/types.js";
import { decideOn } from "./decide-answer.js";
import { chargeOfferOnce } from "./charge-offer.js";
import type { AcceptOfferResponse, AnswerOfferBody } from "./schemas.js";
import { findSessionForAnswer } from "./store.js";

/**
 * SPEC "Upsell" accept: charges the offer's price fixed at creation (CONTRACT §20) to the saved
 * method, through the original order's provider, exactly once (§7, chargeOfferOnce): the order, the
 * answer, the session's change and `upsell.accepted` are committed together after the charge. A
 * refused charge commits only the decline and `payment.failed`, leaves the offer open, and answers 402.
 */
export async function acceptOffer({ ctx, input }: { ctx: Ctx; input: AnswerOfferBody }): Promise<AcceptOfferResponse> {
  const now = ctx.clock.now();
  // The checks and the replay before the decline limit, so a repeat is never refused for it.
  const { found, declines } = await findSessionForAnswer(ctx.db, input.sessionId, input.offerId, { clientAddress: ctx.clientAddress ?? null, since: declineWindowStart(ctx) });
  const decided = decideOn(found, input.offerId, "accept", now);
  if ("replay" in decided) return decided.replay as AcceptOfferResponse;
  assertCountsUnderDeclineLimit(ctx, declines);

  const { session, offer } = decided;
  // The session's mode, its original order's (issue 33): a test order's saved method is charged in demo, also on a brand with real credentials.
  const { adapter, call } = await ctx.providers.payment(session.provider as PaymentProviderType, session.brandId, session.livemode);
  return chargeOfferOnce(ctx, {
    decided,
    now,
    // The same key for every charge of this offer's saved method: should we die between the provider's
    // charge and our commit, the retry sends it again and the provider answers that charge.
    chargeKey: `upsell:${session.id}:${offer.id}`,
    charge: (idempotencyKey) =>
      adapter.chargeSaved(
        { paymentMethodToken: session.paymentMethodToken, amountCents: offer.priceCents, currency: session.currency, orderId: session.orderId, originalOrderId: session.originalOrderId },
        { ...call, log: ctx.log, idempotencyKey },
      ),
    paidInDemo: adapter.demo,
    failure: "upsell charge failed",
  });
}
