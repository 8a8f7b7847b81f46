import type { Ctx } from "../../ctx.js";
import { validationError } from "../../lib/errors.js";
import { chargeOnce } from "../charge-once.js";
import { attemptPayment, declineOfCharge, expectedChargeOf, resolvePayment, succeededCharge } from "../attempts.js";
import { DEMO_UNIT_PRICE_CENTS } from "../../providers/hosted-store/demo.js";
import { PROVIDER } from "../../providers/hosted-store/provider.js";
import { assertExpectedCharge, MAX_AMOUNT_CENTS } from "../../providers/schemas.js";
import type { CompleteHostedCheckoutReply, ConfirmStoreOrderReply, CreateHostedCheckoutBody, CreateHostedCheckoutReply, StoreOrderBody } from "./hosted-store-schemas.js";

/** The line items at their given prices, or the demo catalogue's price per unit for those without one. */
const lineItemsTotal = (items: CreateHostedCheckoutBody["lineItems"]) => items.reduce((sum, item) => sum + (item.price ?? DEMO_UNIT_PRICE_CENTS) * item.quantity, 0);

/** create-checkout: a draft order for the checkout's amount and the hosted page to pay it on. */
export async function createHostedCheckout(ctx: Ctx, body: CreateHostedCheckoutBody): Promise<CreateHostedCheckoutReply> {
  const { order, adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  // An amount or currency stated beside an initialized checkout must be its own, not silently replaced.
  const expected = expectedChargeOf(order);
  if (expected) assertExpectedCharge(expected, { amountCents: body.amount ?? expected.amountCents, currency: body.currency ?? expected.currency });
  const amountCents = order.amountCents ?? body.amount ?? lineItemsTotal(body.lineItems);
  if (amountCents < 1 || amountCents > MAX_AMOUNT_CENTS) throw validationError(`Invalid request: the line items total ${amountCents} cents, outside 1 to ${MAX_AMOUNT_CENTS}`, "lineItems");
  const currency = (order.currency ?? body.currency ?? "USD").toUpperCase();
  const draft = await adapter.createCheckout({ orderId: body.orderId, lineItems: body.lineItems, customer: body.customer, amountCents, currency }, call);
  return { success: true, checkoutUrl: draft.checkoutUrl, storeOrderId: draft.storeOrderId, demo: adapter.demo };
}

/** complete-checkout: the customer paid on the hosted page; the draft becomes a paid order (the demo's: only a draft of the checkout's amount). */
export async function completeHostedCheckout(ctx: Ctx, body: StoreOrderBody): Promise<CompleteHostedCheckoutReply> {
  const { order, livemode, adapter, call, within } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const expected = expectedChargeOf(order);
  return chargeOnce(ctx, { provider: PROVIDER, owner: order, orderId: body.orderId, request: body, call }, async (call) => {
    const charge = await attemptPayment(ctx, {
      livemode,
      provider: PROVIDER,
      orderId: body.orderId,
      charge: (tx) => within(tx).completeCheckout({ ...body, expected }, call),
      declineOf: declineOfCharge,
    });
    const { transactionId, paymentMethodToken } = succeededCharge(charge.outcome);
    return { success: true, storeOrderId: charge.providerOrderId, orderId: body.orderId, transactionId, paymentMethodToken, status: "paid" as const, demo: adapter.demo };
  });
}

/** confirm-order: marks a paid store order confirmed (for fulfilment); idempotent. */
export async function confirmStoreOrder(ctx: Ctx, body: StoreOrderBody): Promise<ConfirmStoreOrderReply> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const confirmed = await adapter.confirmOrder(body, call);
  return { success: true, storeOrderId: confirmed.providerOrderId, orderId: confirmed.orderId, status: confirmed.status, demo: adapter.demo };
}
