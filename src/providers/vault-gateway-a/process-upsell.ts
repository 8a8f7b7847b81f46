import type { Ctx } from "../../ctx.js";
import { validationError } from "../../lib/errors.js";
import { assertMerchantProof } from "../../merchant-credentials/proof.js";
import { attemptPayment, resolvePayment, succeededCharge } from "../payment-attempts.js";
import type { VaultUpsellBody, VaultUpsellReply } from "./schemas.js";

const PROVIDER = "vault_gateway_a";

/** process-upsell: a one-click charge of the method vaulted for `originalOrderId`. */
export async function processVaultUpsell(ctx: Ctx, body: VaultUpsellBody): Promise<VaultUpsellReply> {
  const { order, adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.originalOrderId });
  // CONTRACT §35: a real charge needs the merchant's key; the demo adapter moves no money.
  if (!adapter.demo || ctx.actor.type === "api") await assertMerchantProof(ctx, { brandId: order.brandId, paidInDemo: adapter.demo });
  // CONTRACT §8: a token is usable only for upsells of the order it was issued for; anything else charges nothing.
  const original = await adapter.findTokenPayment(body.paymentMethodToken, call);
  if (!original || original.status !== "succeeded" || original.orderId !== body.originalOrderId) {
    throw validationError("Invalid request: paymentMethodToken was not issued for originalOrderId", "paymentMethodToken");
  }
  const input = { paymentMethodToken: body.paymentMethodToken, amountCents: body.amount, currency: original.currency, orderId: body.orderId, originalOrderId: body.originalOrderId };
  const outcome = await attemptPayment(ctx, {
    provider: PROVIDER,
    orderId: body.orderId,
    charge: (tx) => adapter.chargeSaved(input, { ...call, db: tx }),
    declineOf: (o) => (o.status === "declined" ? { reason: o.reason, amountCents: input.amountCents, currency: input.currency } : null),
  });
  const { transactionId } = succeededCharge(outcome);
  return { success: true, transactionId, orderId: body.orderId, originalOrderId: body.originalOrderId, amount: body.amount, currency: original.currency, demo: adapter.demo };
}
