import type { Ctx } from "../../ctx.js";
import { withTransaction } from "../../db/transaction.js";
import { chargeOnce } from "../charge-once.js";
import { recordDecline } from "../declines.js";
import { orderContextOf } from "../store.js";
import { resolvePayment } from "../attempts.js";
import { PROVIDER, type ChallengeOutcome, type PaymentIntentView } from "../../providers/intent-gateway/provider.js";

/**
 * The demo bank's 3-D Secure step (docs/providers.md "3-D Secure"): the intent confirmed with the
 * 3-D Secure test card waits `requires_action`; its challenge page (id and a random secret in the
 * URL) approves or fails it once, then sends the buyer back to the checkout page with the gateway's
 * return parameters. Only the demo adapter has challenges: with real credentials there are none here.
 */

export interface ChallengeParams {
  paymentIntentId: string;
  challenge: string;
}

/** The open challenge, for the page: the intent and where it returns; null for a forged id or secret. */
export async function findChallenge(ctx: Ctx, params: ChallengeParams): Promise<{ intent: PaymentIntentView; returnUrl: string } | null> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { provider: PROVIDER, providerOrderId: params.paymentIntentId });
  return adapter.findChallenge ? adapter.findChallenge(params, call) : null;
}

/**
 * The buyer's answer. Approving is the order's one charge (CONTRACT §37, as the card endpoints):
 * an identical repeat replays, and an intent already answered is left as it is. Failing records a
 * decline `authentication_failed` (counted, `payment.failed`). Answers where the browser goes next.
 */
export async function answerChallenge(ctx: Ctx, params: ChallengeParams & { outcome: ChallengeOutcome }): Promise<{ location: string } | null> {
  const { order, livemode, adapter, call, within } = await resolvePayment(ctx, PROVIDER, { provider: PROVIDER, providerOrderId: params.paymentIntentId });
  const open = adapter.findChallenge ? await adapter.findChallenge(params, call) : null;
  if (!open) return null;
  const owner = order.checkoutId ? order : await orderContextOf(ctx.db, { orderId: open.intent.orderId });

  const answer = () =>
    withTransaction(ctx.db, async (tx) => {
      const answered = await within(tx).answerChallenge!(params, call);
      if (answered?.changed && answered.intent.status === "failed") {
        const { intent } = answered;
        await recordDecline(ctx, tx, { provider: PROVIDER, livemode, orderId: intent.orderId, reason: intent.declineReason ?? "authentication_failed", amountCents: intent.amountCents, currency: intent.currency, owner });
      }
      return answered?.intent ?? open.intent;
    });

  const intent =
    params.outcome === "approve"
      ? await chargeOnce(ctx, { provider: PROVIDER, owner, orderId: open.intent.orderId, request: { threeDSecure: params.paymentIntentId }, call }, async (_call, result) => {
          const answered = await answer();
          result.charged = answered.status === "succeeded";
          return answered;
        })
      : await answer();
  return { location: returnLocation(open.returnUrl, intent) };
}

/** The return URL with the gateway's parameters: `payment_intent` and `redirect_status`. */
function returnLocation(returnUrl: string, intent: Pick<PaymentIntentView, "paymentIntentId" | "status">): string {
  const status = intent.status === "succeeded" ? "succeeded" : intent.status === "failed" ? "failed" : "pending";
  return `${returnUrl}${returnUrl.includes("?") ? "&" : "?"}payment_intent=${encodeURIComponent(intent.paymentIntentId)}&redirect_status=${status}`;
}
