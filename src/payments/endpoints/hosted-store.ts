import type { Ctx } from "../../ctx.js";
import { validationError } from "../../lib/errors.js";
import { attemptPayment, declineOfCharge, resolvePayment, succeededCharge } from "../attempts.js";
import { PROVIDER } from "../../providers/hosted-store/demo.js";
import type { CompleteHostedCheckoutReply, ConfirmStoreOrderReply, CreateHostedCheckoutBody, CreateHostedCheckoutReply, StoreOrderBody } from "../../providers/hosted-store/schemas.js";

/** create-checkout: a draft order for the checkout's amount and the hosted page to pay it on. */
export async function createHostedCheckout(ctx: Ctx, body: CreateHostedCheckoutBody): Promise<CreateHostedCheckoutReply> {
  const { order, adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const amountCents = order.amountCents ?? body.amount;
  if (amountCents === undefined) throw validationError("Invalid request: amount is required when no checkout exists for orderId", "amount");
  const currency = (order.currency ?? body.currency ?? "USD").toUpperCase();
  const draft = await adapter.createCheckout({ orderId: body.orderId, lineItems: body.lineItems, customer: body.customer, amountCents, currency }, call);
  return { success: true, checkoutUrl: draft.checkoutUrl, storeOrderId: draft.storeOrderId, demo: adapter.demo };
}

/** complete-checkout: the customer paid on the hosted page; the draft becomes a paid order. */
export async function completeHostedCheckout(ctx: Ctx, body: StoreOrderBody): Promise<CompleteHostedCheckoutReply> {
  const { adapter, call, within } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const charge = await attemptPayment(ctx, {
    provider: PROVIDER,
    orderId: body.orderId,
    charge: (tx) => within(tx).completeCheckout(body, call),
    declineOf: declineOfCharge,
  });
  const { transactionId, paymentMethodToken } = succeededCharge(charge.outcome);
  return { success: true, storeOrderId: charge.providerOrderId, orderId: body.orderId, transactionId, paymentMethodToken, status: "paid", demo: adapter.demo };
}

/** confirm-order: marks a paid store order confirmed (for fulfilment); idempotent. */
export async function confirmStoreOrder(ctx: Ctx, body: StoreOrderBody): Promise<ConfirmStoreOrderReply> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const confirmed = await adapter.confirmOrder(body, call);
  return { success: true, storeOrderId: confirmed.providerOrderId, orderId: confirmed.orderId, status: confirmed.status, demo: adapter.demo };
}
