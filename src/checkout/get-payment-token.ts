import type { Ctx } from "../ctx.js";
import { isApiActor } from "../http/auth.js";
import { assertMerchantProof } from "../merchant-credentials/proof.js";
import { notFound } from "../lib/errors.js";
import type { PaymentProviderType } from "../providers/types.js";
import type { GetPaymentTokenBody, GetPaymentTokenResponse } from "./schemas.js";
import { findPaymentMethodToken } from "./store.js";

/**
 * SPEC "Checkout" get-payment-token: the saved payment method of a completed order, found by its
 * provider and transaction. The token is usable only for upsells of that order (CONTRACT §8).
 * Needs merchant proof (CONTRACT §35): an API key of the order's brand, or an order paid in demo
 * mode. A key sees only its brand's orders: another brand's transaction is a not-found.
 */
export async function getPaymentToken({ ctx, input }: { ctx: Ctx; input: GetPaymentTokenBody }): Promise<GetPaymentTokenResponse> {
  const order = await findPaymentMethodToken(ctx.db, input.provider, input.transactionId);
  const providerOrderIdDiffers = input.providerOrderId !== undefined && order?.providerOrderId != null && order.providerOrderId !== input.providerOrderId;
  const otherBrand = isApiActor(ctx.actor) && order?.brandId !== ctx.actor.brandId;
  if (!order?.paymentMethodToken || providerOrderIdDiffers || otherBrand) throw notFound("Payment not found");
  await assertMerchantProof(ctx, order);
  return { success: true, paymentMethodToken: order.paymentMethodToken, provider: order.provider as PaymentProviderType };
}
