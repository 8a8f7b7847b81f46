import type { Ctx } from "../../ctx.js";
import { payOrderByCard, resolvePayment } from "../attempts.js";
import { PROVIDER } from "../../providers/cart-gateway/provider.js";
import type { CartPaymentBody, CartPaymentReply, CreateCartBody, CreateCartReply } from "../../providers/cart-gateway/schemas.js";

export async function createCart(ctx: Ctx, body: CreateCartBody): Promise<CreateCartReply> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const { cartOrderId } = await adapter.createCart({ ...body, currency: (body.currency ?? "USD").toUpperCase() }, call);
  return { success: true, cartOrderId, demo: adapter.demo };
}

/** Charges the cart's total by card. */
export const payCart = (ctx: Ctx, body: CartPaymentBody): Promise<CartPaymentReply> =>
  payOrderByCard(
    ctx,
    PROVIDER,
    body,
    (adapter, card, call) => adapter.processPayment({ cartOrderId: body.cartOrderId, orderId: body.orderId, card }, call),
    (charge, { transactionId }, demo) => ({ success: true, transactionId, cartOrderId: charge.providerOrderId, demo }),
  );
