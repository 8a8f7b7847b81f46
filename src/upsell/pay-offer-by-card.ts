import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import type { StoredOffer } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { AppError, conflict, validationError } from "../lib/errors.js";
import { faultPoint } from "../lib/fault-points.js";
import { assertCountsUnderDeclineLimit, declineWindowStart, paymentFailed } from "../payments/declines.js";
import { assertCardAcceptable } from "../providers/demo/cards.js";
import { cardOf } from "../providers/schemas.js";
import { ProviderError, type CardInput, type ChargeOutcome } from "../providers/types.js";
import { acceptedAnswer, recordRefusal } from "./accept-offer.js";
import { decide } from "./answer-offer.js";
import type { AcceptOfferResponse, PayOfferByCardBody } from "./schemas.js";
import { checkAnswerable } from "./session.js";
import { findSessionForAnswer, reserveOfferResult, saveAnswer, wasOfferRefused, type UpsellSessionRow } from "./store.js";

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
 * charge; the demo adapter in demo mode), exactly once per session and offer (the session's row lock,
 * the (session, offer) row, a provider idempotency key), declines counted and limited (CONTRACT §21),
 * and the same order, answer and `upsell.accepted` on success. A repeat after success replays the answer.
 */
export async function payOfferByCard({ ctx, input }: { ctx: Ctx; input: PayOfferByCardBody }): Promise<AcceptOfferResponse> {
  const now = ctx.clock.now();
  const { found, declines } = await findSessionForAnswer(ctx.db, input.sessionId, input.offerId, { clientAddress: ctx.clientAddress ?? null, since: declineWindowStart(ctx) });
  const { session } = checkAnswerable(found?.session ?? null, input.offerId, now);
  if (found!.prior?.decision === "accepted" && found!.prior.result) return found!.prior.result as AcceptOfferResponse;
  if ((found!.prior?.decision as string | undefined) !== "refused") throw notRefusedYet();
  if (!isCardProvider(session.provider)) throw cardNotTaken(session.provider);
  assertCountsUnderDeclineLimit(ctx, declines);
  const card = cardOf(input);
  assertCardAcceptable(card, now);

  let outcome: { result: AcceptOfferResponse } | { declined: string };
  try {
    outcome = await withTransaction(ctx.db, async (tx) => {
      const decided = await decide(tx, input.sessionId, input.offerId, "accept", now);
      if ("replay" in decided) return { result: decided.replay as AcceptOfferResponse };
      // Under the lock: another request may have answered or paid the offer while this one waited.
      if (!(await wasOfferRefused(tx, decided.session.id, decided.offer.id))) throw notRefusedYet();
      await reserveOfferResult(tx, decided.session.id, decided.offer.id, new Date(now));
      const { charge, paidInDemo } = await chargeCard(ctx, tx, decided.session, decided.offer, card);
      if (charge.status !== "succeeded") {
        const reason = charge.status === "declined" ? charge.reason : "authentication_required";
        await recordRefusal(ctx, tx, decided, reason, !paidInDemo);
        return { declined: reason };
      }
      // The new card's method is not kept for the session: later offers still go to the saved one (§8).
      const accepted = acceptedAnswer(decided, { ...charge, paymentMethodToken: undefined }, paidInDemo, now);
      await saveAnswer(tx, accepted.answer);
      return { result: accepted.result };
    });
  } catch (error) {
    if (error instanceof ProviderError) {
      ctx.log.warn({ provider: session.provider, retryable: error.retryable, err: error.message }, "upsell card charge failed");
      throw new AppError("PROVIDER_ERROR", `Payment provider ${session.provider} failed`);
    }
    throw error;
  }
  if ("declined" in outcome) throw paymentFailed(outcome.declined);
  return outcome.result;
}

/** The provider's card charge for the offer's fixed price, inside the transaction holding the session's lock. */
async function chargeCard(ctx: Ctx, tx: Db, session: UpsellSessionRow, offer: StoredOffer, card: CardInput): Promise<{ charge: ChargeOutcome; paidInDemo: boolean }> {
  const { adapter, call } = await ctx.providers.payment(session.provider as CardProvider, session.brandId, tx);
  faultPoint(ctx.config, "charge.before-provider");
  const charge = await adapter.processPayment(
    { orderId: session.orderId, amountCents: offer.priceCents, currency: session.currency, card, customer: { email: session.customerEmail } },
    // Distinct from the one-click charge's key: a provider must not answer this with that refusal.
    { ...call, log: ctx.log, idempotencyKey: `upsell-card:${session.id}:${offer.id}` },
  );
  faultPoint(ctx.config, "charge.after-provider");
  return { charge, paidInDemo: adapter.demo };
}
