import type { Ctx } from "../../ctx.js";
import { assertExpectedCharge, lineItemsTotal } from "../../providers/schemas.js";
import { expectedChargeOf, payOrderByCard, resolvePayment } from "../attempts.js";
import { PROVIDER } from "../../providers/cart-gateway/provider.js";
import type { CartPaymentBody, CartPaymentReply, CreateCartBody, CreateCartReply } from "./cart-gateway-schemas.js";

/** create-cart: the cart process-payment charges (Σ price × quantity); its total and currency must be the checkout's (when one is initialized). */
export async function createCart(ctx: Ctx, body: CreateCartBody): Promise<CreateCartReply> {
  const stated = { amountCents: lineItemsTotal(body.lineItems), currency: (body.currency ?? "USD").toUpperCase() };
  const { order, adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId }, stated);
  assertExpectedCharge(expectedChargeOf(order), stated, { amount: "lineItems", currency: "currency" });
  const { cartOrderId } = await adapter.createCart({ ...body, currency: stated.currency }, call);
  return { success: true, cartOrderId, demo: adapter.demo };
}

/** Charges the cart's total by card; a cart of another amount than the checkout's is refused before the charge. */
export const payCart = (ctx: Ctx, body: CartPaymentBody): Promise<CartPaymentReply> =>
  payOrderByCard(
    ctx,
    PROVIDER,
    body,
    (adapter, card, call, expected) => adapter.processPayment({ cartOrderId: body.cartOrderId, orderId: body.orderId, card, expected }, call),
    (charge, { transactionId }, demo) => ({ success: true, transactionId, cartOrderId: charge.providerOrderId, demo }),
  );
