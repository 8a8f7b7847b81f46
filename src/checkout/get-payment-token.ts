import type { Ctx } from "../ctx.js";
import { notFound } from "../lib/errors.js";
import type { PaymentProviderType } from "../providers/types.js";
import type { GetPaymentTokenBody, GetPaymentTokenResponse } from "./schemas.js";
import { findPaymentMethodToken } from "./store.js";

/**
 * SPEC "Checkout" get-payment-token: the saved payment method of a completed order, found by its
 * provider and transaction. The token is usable only for upsells of that order (CONTRACT §8).
 */
export async function getPaymentToken({ ctx, input }: { ctx: Ctx; input: GetPaymentTokenBody }): Promise<GetPaymentTokenResponse> {
  const order = await findPaymentMethodToken(ctx.db, input.provider, input.transactionId);
  const providerOrderIdDiffers = input.providerOrderId !== undefined && order?.providerOrderId != null && order.providerOrderId !== input.providerOrderId;
  if (!order?.paymentMethodToken || providerOrderIdDiffers) throw notFound("Payment not found");
  return { success: true, paymentMethodToken: order.paymentMethodToken, provider: order.provider as PaymentProviderType };
}
