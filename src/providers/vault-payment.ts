import type { Ctx } from "../ctx.js";
import type { VaultGatewayId, VaultPaymentInput } from "./demo/vault-gateway.js";
import { attemptPayment, resolvePayment, succeededCharge } from "./payment-attempts.js";
import type { CardInput } from "./types.js";

export interface VaultPaymentReply {
  success: boolean;
  transactionId: string;
  orderId: string;
  paymentMethodToken: string;
  demo: boolean;
}

/** process-payment of both vault gateways: charge the card and vault it for one-click upsells. */
export async function processVaultPayment(ctx: Ctx, provider: VaultGatewayId, input: Omit<VaultPaymentInput, "card"> & { card: CardInput }): Promise<VaultPaymentReply> {
  const { adapter, call } = await resolvePayment(ctx, provider, { orderId: input.orderId });
  const currency = input.currency.toUpperCase();
  const outcome = await attemptPayment(ctx, {
    provider,
    orderId: input.orderId,
    card: input.card,
    charge: (tx) => adapter.processPayment({ ...input, currency }, { ...call, db: tx }),
    declineOf: (o) => (o.status === "declined" ? { reason: o.reason, amountCents: input.amountCents, currency } : null),
  });
  const { transactionId, paymentMethodToken } = succeededCharge(outcome);
  return { success: true, transactionId, orderId: input.orderId, paymentMethodToken, demo: adapter.demo };
}
