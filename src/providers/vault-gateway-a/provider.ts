import type { AddressInput, CardInput, ChargeOutcome, PartyInput, PaymentProvider, PaymentRecord, ProviderCall } from "../types.js";

/**
 * vault_gateway_a as both its adapters (demo.ts, adapter.ts) implement it. The two vault gateways
 * share one contract and token format, so `VaultGatewayAdapter`, its input and `vaultToken` are
 * defined here once and vault_gateway_b imports them from this file.
 */

export const PROVIDER = "vault_gateway_a";
/** Ids `vga_ord_…` (provider order; the real gateway has none, so ours), `vga_txn_…`, `vga_cv_…` (demo). */
export const ID_PREFIX = "vga";

export type VaultGatewayId = "vault_gateway_a" | "vault_gateway_b";

export interface VaultPaymentInput {
  orderId: string;
  amountCents: number;
  currency: string;
  card: CardInput;
  customer?: PartyInput | null;
  billingAddress?: AddressInput | null;
  shippingAddress?: AddressInput | null;
  lineItems?: { productId: string; quantity: number; price: number }[];
}

/** The two direct card gateways with a customer vault share one contract. */
export interface VaultGatewayAdapter extends PaymentProvider {
  readonly id: VaultGatewayId;
  /** Charges the card and stores it in the customer vault. */
  processPayment(input: VaultPaymentInput, call: ProviderCall): Promise<ChargeOutcome>;
  /** The payment that issued a saved-method token, or null (CONTRACT §8 checks use its orderId). */
  findTokenPayment(paymentMethodToken: string, call: ProviderCall): Promise<PaymentRecord | null>;
}

/** Payment method token of both vault gateways: `<customerVaultId>|<transactionId>` (SPEC "Payment method token formats"). */
export const vaultToken = (customerVaultId: string, transactionId: string) => `${customerVaultId}|${transactionId}`;
