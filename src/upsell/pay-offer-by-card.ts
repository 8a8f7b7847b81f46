import type { Ctx } from "../ctx.js";
import { conflict, validationError } from "../lib/errors.js";
import { randomToken } from "../lib/ids.js";
import { assertCountsUnderDeclineLimit, declineWindowStart } from "../payments/declines.js";
import { assertCardAcceptable } from "../providers/demo/cards.js";
import { cardOf } from "../providers/schemas.js";
import { decideOn } from "./decide-answer.js";
import { chargeOfferOnce } from "./charge-offer.js";
import type { AcceptOfferResponse, PayOfferByCardBody } from "./schemas.js";
import { findSessionForAnswer } from "./store.js";

/**
 * The providers whose card-taking call charges a given amount with card fields (docs/upsell.md): the
 * one list, read by this verb and by the hosted page's offer read (`payWithCard`).
 */
const CARD_PROVIDERS = ["vault_gateway_a", "vault_gateway_b"] as const;
type CardProvider = (typeof CARD_PROVIDERS)[number];
const isCardProvider = (provider: string): provider is CardProvider => (CARD_PROVIDERS as readonly string[]).includes(provider);
/** Whether an offer of a session at `provider` can be paid with another card after a refusal. */
export const takesNewCard = (provider: string): boolean => isCardProvider(provider);

export const notRefusedYet = () => conflict("Pay with another card is offered only after the one-click charge of this offer was refused", "CONFLICT");
export const cardNotTaken = (provider: string) => validationError(`Invalid request: upsells of ${provider} cannot be paid with another card`, "provider");

/**
 * Issue 18: after the one-click charge of an offer was refused, the buyer pays that offer with another
 * card. The session id (128 random bits) is the buyer's proof, as for accept. The same rules as accept:
 * the offer's price fixed at creation in the session's currency, the session's provider (its card
 * charge; the demo adapter in demo mode), exactly once per session and offer (chargeOfferOnce: the
 * (session, offer) row as the claim, a provider idempotency key), declines counted and limited
 * (CONTRACT §21), and the same order, answer and `upsell.accepted` on success. A repeat after success
 * replays the answer.
 */
export async function payOfferByCard({ ctx, input }: { ctx: Ctx; input: PayOfferByCardBody }): Promise<AcceptOfferResponse> {
  const now = ctx.clock.now();
  const { found, declines } = await findSessionForAnswer(ctx.db, input.sessionId, input.offerId, { clientAddress: ctx.clientAddress ?? null, since: declineWindowStart(ctx) });
  const decided = decideOn(found, input.offerId, "accept", now);
  if ("replay" in decided) return decided.replay as AcceptOfferResponse;
  // Refused, or a charge of it under way (a repeat of this payment, say): chargeOfferOnce waits for that one's answer.
  const prior = found!.prior?.decision;
  if (prior !== "refused" && prior !== "pending") throw notRefusedYet();
  const { session, offer } = decided;
  if (!isCardProvider(session.provider)) throw cardNotTaken(session.provider);
  assertCountsUnderDeclineLimit(ctx, declines);
  const card = cardOf(input);
  assertCardAcceptable(card, now);

  const { adapter, call } = await ctx.providers.payment(session.provider, session.brandId, session.livemode);
  return chargeOfferOnce(ctx, {
    decided,
    now,
    // One key per payment, distinct from the one-click charge's: a provider must not answer another card
    // with an earlier refusal. A claim taken over keeps its key, so a retry after a crash sends it again.
    chargeKey: `upsell-card:${session.id}:${offer.id}:${randomToken(9)}`,
    // The new card's method is not kept for the session: later offers still go to the saved one (§8).
    charge: (idempotencyKey) =>
      adapter.processPayment(
        { orderId: session.orderId, amountCents: offer.priceCents, currency: session.currency, card, customer: { email: session.customerEmail } },
        { ...call, log: ctx.log, idempotencyKey },
      ),
    paidInDemo: adapter.demo,
    card,
    failure: "upsell card charge failed",
  });
}
