import type { Ctx } from "../../ctx.js";
import { chargeOnce } from "../charge-once.js";
import { attemptPayment, declineOfCharge, resolvePayment, succeededCharge } from "../attempts.js";
import { cardOf } from "../../providers/schemas.js";
import { PROVIDER } from "../../providers/cart-gateway/provider.js";
import type { CartPaymentBody, CartPaymentReply, CreateCartBody, CreateCartReply } from "../../providers/cart-gateway/schemas.js";

export async function createCart(ctx: Ctx, body: CreateCartBody): Promise<CreateCartReply> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const { cartOrderId } = await adapter.createCart({ ...body, currency: (body.currency ?? "USD").toUpperCase() }, call);
  return { success: true, cartOrderId, demo: adapter.demo };
}

/** Charges the cart's total by card. */
export async function payCart(ctx: Ctx, body: CartPaymentBody): Promise<CartPaymentReply> {
  const { order, adapter, call, within } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const card = cardOf(body);
  return chargeOnce(ctx, { provider: PROVIDER, brandId: order.brandId, orderId: body.orderId, completed: order.completed, request: body, call }, async (call) => {
    const charge = await attemptPayment(ctx, {
      provider: PROVIDER,
      orderId: body.orderId,
      card,
      charge: (tx) => within(tx).processPayment({ cartOrderId: body.cartOrderId, orderId: body.orderId, card }, call),
      declineOf: declineOfCharge,
    });
    return { success: true, transactionId: succeededCharge(charge.outcome).transactionId, cartOrderId: charge.providerOrderId, demo: adapter.demo };
  });
}
