import type { Ctx } from "../../ctx.js";
import { AppError, validationError } from "../../lib/errors.js";
import { attemptPayment, resolvePayment } from "../attempts.js";
import { paymentFailed } from "../declines.js";
import { optionalCardOf } from "../../providers/schemas.js";
import { PROVIDER, type PaymentIntentView } from "../../providers/intent-gateway/demo.js";
import type { ConfirmIntentBody, ConfirmIntentReply, CreateIntentBody, CreateIntentReply } from "../../providers/intent-gateway/schemas.js";

const declineOfIntent = (intent: PaymentIntentView) =>
  intent.status === "failed" ? { reason: intent.declineReason ?? "card_declined", amountCents: intent.amountCents, currency: intent.currency } : null;

/** create-intent: a payment intent for the order; with card fields (demo) it is confirmed at once. */
export async function createPaymentIntent(ctx: Ctx, body: CreateIntentBody): Promise<CreateIntentReply> {
  const { adapter, call, within } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const card = optionalCardOf(body);
  const input = { orderId: body.orderId, amountCents: body.amount, currency: body.currency.toUpperCase(), customer: body.customer, metadata: body.metadata, shippingAddress: body.shippingAddress };
  const intent = card
    ? await attemptPayment(ctx, {
        provider: PROVIDER,
        orderId: body.orderId,
        card,
        charge: (tx) => within(tx).createIntent({ ...input, card }, call),
        declineOf: declineOfIntent,
      })
    : await adapter.createIntent(input, call);
  return { success: true, paymentIntentId: intent.paymentIntentId, clientSecret: intent.clientSecret };
}

/** confirm: with card fields (demo) a payment attempt; without, the intent's current status. */
export async function confirmPaymentIntent(ctx: Ctx, body: ConfirmIntentBody): Promise<ConfirmIntentReply> {
  const { adapter, call, within } = await resolvePayment(ctx, PROVIDER, { provider: PROVIDER, providerOrderId: body.paymentIntentId });
  const card = optionalCardOf(body);
  const existing = await adapter.retrieveIntent(body.paymentIntentId, call);
  if (!existing) throw new AppError("NOT_FOUND", "Payment intent not found", "paymentIntentId");

  const intent = card
    ? await attemptPayment(ctx, {
        provider: PROVIDER,
        orderId: existing.orderId,
        card,
        charge: (tx) => within(tx).confirmIntent({ paymentIntentId: body.paymentIntentId, card }, call),
        declineOf: declineOfIntent,
      })
    : await adapter.confirmIntent({ paymentIntentId: body.paymentIntentId }, call);
  // Reading a failed intent reports the earlier decline again; it is not a new attempt, so nothing is counted.
  if (intent.status === "failed") throw paymentFailed(intent.declineReason ?? "card_declined");
  if (intent.status === "requires_payment_method" || !intent.paymentMethodId) throw validationError("Invalid request: cardNumber is required", "cardNumber");
  return { success: true, status: intent.status, paymentIntentId: intent.paymentIntentId, orderId: intent.orderId, paymentMethodId: intent.paymentMethodId };
}
