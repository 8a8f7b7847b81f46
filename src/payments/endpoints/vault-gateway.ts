import type { Ctx } from "../../ctx.js";
import { validationError } from "../../lib/errors.js";
import type { VaultGatewayId, VaultPaymentInput } from "../../providers/vault-gateway-a/provider.js";
import { attemptPayment, resolveCharge, resolvePayment, succeededCharge } from "../attempts.js";
import { chargeOnce } from "../charge-once.js";
import { paidInDemoOf } from "../store.js";
import type { CardInput } from "../../providers/types.js";
import type { VaultUpsellBody, VaultUpsellReply } from "./vault-gateway-a-schemas.js";

export interface VaultPaymentReply {
  success: boolean;
  transactionId: string;
  orderId: string;
  paymentMethodToken: string;
  demo: boolean;
}

/** process-payment of both vault gateways: charge the card and vault it for one-click upsells. */
export async function processVaultPayment(ctx: Ctx, provider: VaultGatewayId, input: Omit<VaultPaymentInput, "card"> & { card: CardInput }): Promise<VaultPaymentReply> {
  const currency = input.currency.toUpperCase();
  const { order, livemode, adapter, call, within, opened } = await resolveCharge(ctx, provider, input, { amountCents: input.amountCents, currency });
  return chargeOnce(ctx, { provider, owner: order, orderId: input.orderId, request: input, call, opened }, async (call) => {
    const outcome = await attemptPayment(ctx, {
      livemode,
      provider,
      orderId: input.orderId,
      declineCounts: opened.held ? opened.declineCounts : undefined,
      card: input.card,
      charge: (db) => within(db).processPayment({ ...input, currency }, call),
      declineOf: (o) => (o.status === "declined" ? { reason: o.reason, providerCode: o.providerCode, amountCents: input.amountCents, currency } : null),
    });
    const { transactionId, paymentMethodToken } = succeededCharge(outcome);
    return { success: true, transactionId, orderId: input.orderId, paymentMethodToken, demo: adapter.demo };
  });
}

const UPSELL_PROVIDER = "vault_gateway_a";

/**
 * CONTRACT §35's merchant proof of the order's brand (merchant-credentials/proof.ts), handed in by
 * app.ts: API keys are merchant credentials' business, not payments'. Throws when it is missing.
 */
export type MerchantProof = (ctx: Ctx, order: { brandId: string; paidInDemo: boolean | null; livemode: boolean }) => Promise<void>;

/** process-upsell: a one-click charge of the method vaulted for `originalOrderId`. */
export async function processVaultUpsell(ctx: Ctx, body: VaultUpsellBody, assertMerchantProof: MerchantProof): Promise<VaultUpsellReply> {
  const resolved = await resolvePayment(ctx, UPSELL_PROVIDER, { orderId: body.originalOrderId });
  const { order, livemode } = resolved;
  // The saved method is charged where the original order was paid (issue 33): the demo ledger, the
  // provider's sandbox (test credentials) or live, by the order's stored mode and paidInDemo.
  const paidInDemo = await paidInDemoOf(ctx.db, order.brandId, body.originalOrderId);
  const { adapter, call, within } = paidInDemo === undefined ? resolved : await ctx.providers.paymentOf(UPSELL_PROVIDER, order.brandId, { livemode, paidInDemo });
  // CONTRACT §35: a real charge needs the merchant's key (of the order's mode, issue 33); the demo adapter moves no money.
  if (!adapter.demo || ctx.actor.type === "api") await assertMerchantProof(ctx, { brandId: order.brandId, paidInDemo: adapter.demo, livemode });
  // CONTRACT §8: a token is usable only for upsells of the order it was issued for; anything else charges nothing.
  const original = await adapter.findTokenPayment(body.paymentMethodToken, call);
  if (!original || original.status !== "succeeded" || original.orderId !== body.originalOrderId) {
    throw validationError("Invalid request: paymentMethodToken was not issued for originalOrderId", "paymentMethodToken");
  }
  const input = { paymentMethodToken: body.paymentMethodToken, amountCents: body.amount, currency: original.currency, orderId: body.orderId, originalOrderId: body.originalOrderId };
  // The upsell's orderId is a new order of the same brand: charged once, like any other (CONTRACT §37).
  return chargeOnce(ctx, { provider: UPSELL_PROVIDER, owner: { brandId: order.brandId, completed: false }, orderId: body.orderId, request: body, call }, async (call) => {
    const outcome = await attemptPayment(ctx, {
      livemode,
      provider: UPSELL_PROVIDER,
      orderId: body.orderId,
      charge: (tx) => within(tx).chargeSaved(input, call),
      declineOf: (o) => (o.status === "declined" ? { reason: o.reason, providerCode: o.providerCode, amountCents: input.amountCents, currency: input.currency } : null),
    });
    const { transactionId } = succeededCharge(outcome);
    return { success: true, transactionId, orderId: body.orderId, originalOrderId: body.originalOrderId, amount: body.amount, currency: original.currency, demo: adapter.demo };
  });
}
