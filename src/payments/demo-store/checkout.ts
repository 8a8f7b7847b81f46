import type { Ctx } from "../../ctx.js";
import { withTransaction } from "../../db/transaction.js";
import { expectedChargeOf, resolvePayment } from "../attempts.js";
import { assertUnderDeclineLimit, paymentFailed, recordDecline } from "../declines.js";
import { completeHostedCheckout } from "../endpoints/hosted-store.js";
import { orderContextOf } from "../store.js";
import { assertExpectedCharge, CHECKOUT_RETURN_PATH } from "../../providers/schemas.js";
import { assertCardAcceptable, testCardBehaviour } from "../../providers/demo/cards.js";
import type { CardInput } from "../../providers/types.js";
import { PROVIDER, type DemoDraft } from "../../providers/hosted-store/provider.js";

/**
 * The demo store's checkout page (docs/providers.md "hosted_store"): what the real store's hosted
 * checkout does for a draft order, in demo mode. The buyer pays the draft with a card (the demo test
 * cards behave as everywhere), which completes it as complete-checkout does, and goes back to the
 * checkout page with `storeOrderId`; the page then calls complete-checkout (replayed) and complete.
 */

/** The draft the page shows; null for an unknown id or a store with real credentials (its page is the store's). */
export async function findDemoDraft(ctx: Ctx, storeOrderId: string): Promise<DemoDraft | null> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { provider: PROVIDER, providerOrderId: storeOrderId });
  return adapter.findDraft ? adapter.findDraft(storeOrderId, call) : null;
}

/** Only our own checkout page may be returned to (an open redirect otherwise); anything else returns to "/". */
export const safeReturnPath = (returnUrl: string | undefined) => (returnUrl && CHECKOUT_RETURN_PATH.test(returnUrl) ? returnUrl : "/");

export const returnLocation = (returnUrl: string | undefined, storeOrderId: string) => {
  const path = safeReturnPath(returnUrl);
  return `${path}${path.includes("?") ? "&" : "?"}storeOrderId=${encodeURIComponent(storeOrderId)}`;
};

/**
 * Pays the draft: a draft of another amount or currency than the order's initialized checkout is
 * refused (400) before anything else, then the decline limit and card check as every card endpoint
 * (400 / 429), a declining test card is a recorded decline (402), else the draft is completed once
 * (an identical repeat, the checkout page's complete-checkout, replays it).
 */
export async function payDemoDraft(ctx: Ctx, draft: DemoDraft, card: CardInput): Promise<void> {
  const owner = await orderContextOf(ctx.db, { orderId: draft.orderId });
  assertExpectedCharge(expectedChargeOf(owner), draft);
  await assertUnderDeclineLimit(ctx, draft.orderId);
  assertCardAcceptable(card, ctx.clock.now());
  const behaviour = testCardBehaviour(card.cardNumber, PROVIDER);
  // The store has no 3-D Secure step: the 3-D Secure card is a decline here, as at the other providers.
  const reason = behaviour.kind === "decline" ? behaviour.reason : behaviour.kind === "requires_action" ? "authentication_required" : null;
  if (reason) {
    const normalised = await withTransaction(ctx.db, (tx) => recordDecline(ctx, tx, { provider: PROVIDER, livemode: false, orderId: draft.orderId, reason, providerCode: reason, amountCents: draft.amountCents, currency: draft.currency, card, owner }));
    throw paymentFailed(reason, normalised);
  }
  await completeHostedCheckout(ctx, { storeOrderId: draft.storeOrderId, orderId: draft.orderId });
}
