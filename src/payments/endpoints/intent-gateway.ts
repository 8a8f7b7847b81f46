import type { Ctx } from "../../ctx.js";
import { AppError, validationError } from "../../lib/errors.js";
import { attemptPayment, expectedChargeOf, resolvePayment } from "../attempts.js";
import { chargeOnce } from "../charge-once.js";
import { orderContextOf } from "../store.js";
import { normaliseDecline } from "../decline-codes.js";
import { paymentFailed } from "../declines.js";
import { assertExpectedCharge, optionalCardOf } from "../../providers/schemas.js";
import { PROVIDER, type PaymentIntentView } from "../../providers/intent-gateway/provider.js";
import type { ConfirmIntentBody, ConfirmIntentReply, CreateIntentBody, CreateIntentReply } from "./intent-gateway-schemas.js";

// The intent's declineReason is the gateway's own code (decline_code, else code).
const declineOfIntent = (intent: PaymentIntentView) =>
  intent.status === "failed" ? { reason: intent.declineReason ?? "card_declined", providerCode: intent.declineReason ?? undefined, amountCents: intent.amountCents, currency: intent.currency } : null;

/**
 * create-intent: a payment intent for the order; with card fields (demo) it is confirmed at once. With
 * or without a card, an intent is for the initialized checkout's amount and currency only: confirm
 * would charge it as it is.
 */
export async function createPaymentIntent(ctx: Ctx, body: CreateIntentBody): Promise<CreateIntentReply> {
  const input = { orderId: body.orderId, amountCents: body.amount, currency: body.currency.toUpperCase(), customer: body.customer, metadata: body.metadata, shippingAddress: body.shippingAddress };
  const { order, livemode, adapter, call, within } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId }, input);
  const card = optionalCardOf(body);
  assertExpectedCharge(expectedChargeOf(order), input);
  if (!card) {
    const intent = await adapter.createIntent(input, call);
    return { success: true, paymentIntentId: intent.paymentIntentId, clientSecret: intent.clientSecret };
  }
  return chargeOnce(ctx, { provider: PROVIDER, owner: order, orderId: body.orderId, request: body, call }, async (call, result) => {
    const intent = await attemptPayment(ctx, {
      livemode,
      provider: PROVIDER,
      orderId: body.orderId,
      card,
      charge: (tx) => within(tx).createIntent({ ...input, card }, call),
      declineOf: declineOfIntent,
    });
    result.charged = intent.status === "succeeded";
    return { success: true, paymentIntentId: intent.paymentIntentId, clientSecret: intent.clientSecret };
  });
}

/** The confirm answer for an intent: a failed one is the 402 of its decline; one without a card is 400. */
function confirmReply(intent: PaymentIntentView): ConfirmIntentReply {
  if (intent.status === "failed") {
    const reason = intent.declineReason ?? "card_declined";
    throw paymentFailed(reason, normaliseDecline(PROVIDER, { reason, providerCode: intent.declineReason ?? undefined }));
  }
  if (intent.status === "requires_payment_method" || !intent.paymentMethodId) throw validationError("Invalid request: cardNumber is required", "cardNumber");
  const reply: ConfirmIntentReply = { success: true, status: intent.status, paymentIntentId: intent.paymentIntentId, orderId: intent.orderId, paymentMethodId: intent.paymentMethodId };
  // 3-D Secure: the page sends the buyer to the bank's page (docs/providers.md "3-D Secure").
  if (intent.status === "requires_action" && intent.nextActionUrl) reply.nextAction = { type: "redirect_to_url", url: intent.nextActionUrl };
  return reply;
}

/**
 * confirm: a payment attempt. In demo mode a card given here is charged, and an intent still waiting
 * for a card confirms as the default test card would; live, the page confirmed with the gateway's SDK
 * and this reads the outcome. A succeeded intent is the order's one charge (CONTRACT §37): confirming
 * it again, card or not, reads it (its own success, never 409 ALREADY_PAID: nothing more is charged).
 * An intent of another amount or currency than the order's initialized checkout is refused before it
 * is charged.
 */
export async function confirmPaymentIntent(ctx: Ctx, body: ConfirmIntentBody): Promise<ConfirmIntentReply> {
  const { order, livemode, adapter, call, within } = await resolvePayment(ctx, PROVIDER, { provider: PROVIDER, providerOrderId: body.paymentIntentId });
  const card = optionalCardOf(body);
  const existing = await adapter.retrieveIntent(body.paymentIntentId, call);
  if (!existing) throw new AppError("NOT_FOUND", "Payment intent not found", "paymentIntentId");
  // Without a card, an intent past its payment attempt is only read: no charge, and a decline reported again is not counted again.
  // A succeeded intent is only read, card or not (create-intent with the card, then confirm with it, as a client SDK does).
  if (existing.status === "succeeded" || (!card && existing.status !== "requires_payment_method")) return confirmReply(existing);

  // An intent made by create-intent is no checkout's providerOrderId: whose order it is follows from its orderId.
  const owner = order.checkoutId ? order : await orderContextOf(ctx.db, { orderId: existing.orderId });
  assertExpectedCharge(expectedChargeOf(owner), existing);
  return chargeOnce(ctx, { provider: PROVIDER, owner, orderId: existing.orderId, request: body, call }, async (call, result) => {
    const intent = await attemptPayment(ctx, {
      livemode,
      provider: PROVIDER,
      orderId: existing.orderId,
      card,
      charge: (tx) => within(tx).confirmIntent({ paymentIntentId: body.paymentIntentId, card, returnUrl: body.returnUrl }, call),
      declineOf: declineOfIntent,
    });
    result.charged = intent.status === "succeeded";
    return confirmReply(intent);
  });
}
