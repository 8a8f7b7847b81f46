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
  // Where the original order was paid (issue 33), by its stored mode and paidInDemo: a test order paid in
  // demo has its saved method in the demo ledger (also on a brand with live or sandbox credentials), one
  // paid at a provider's sandbox is charged there with the test credentials, a live one with the live ones.
  const { adapter, call } = await ctx.providers.paymentOf(session.provider as PaymentProviderType, session.brandId, { livemode: session.livemode, paidInDemo: decided.original.paidInDemo });
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
