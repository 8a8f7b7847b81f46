import type { AddressInput, CardInput, PaymentProvider, ProviderCall } from "../types.js";

/**
 * intent_gateway as both its adapters (demo.ts, adapter.ts) implement it: the id, the adapter
 * interface of its SPEC endpoints, and the token format.
 */

export const PROVIDER = "intent_gateway";

/** The gateway's intent statuses (SPEC "Other status values") plus the state before a card is given. */
export type PaymentIntentStatus = "requires_payment_method" | "requires_action" | "processing" | "succeeded" | "failed";

export interface PaymentIntentView {
  paymentIntentId: string;
  clientSecret: string;
  orderId: string;
  amountCents: number;
  currency: string;
  status: PaymentIntentStatus;
  paymentMethodId: string | null;
  /** Why the last attempt failed, when status is `failed`. */
  declineReason: string | null;
}

export interface CreateIntentInput {
  orderId: string;
  amountCents: number;
  currency: string;
  customer?: { email: string; name?: string; firstName?: string; lastName?: string } | null;
  metadata?: Record<string, string>;
  shippingAddress?: AddressInput | null;
  /** Demo mode only: the page's card form stands in for the gateway's client SDK (CONTRACT §33). */
  card?: CardInput;
}

export interface IntentGatewayAdapter extends PaymentProvider {
  createIntent(input: CreateIntentInput, call: ProviderCall): Promise<PaymentIntentView>;
  retrieveIntent(paymentIntentId: string, call: ProviderCall): Promise<PaymentIntentView | null>;
  /** With a card, attempts the payment (unless it already succeeded); without one, reads the status. */
  confirmIntent(input: { paymentIntentId: string; card?: CardInput }, call: ProviderCall): Promise<PaymentIntentView>;
}

/** Payment method token: `<paymentMethodId>|<customerId>` (SPEC "Payment method token formats"). */
export const intentToken = (paymentMethodId: string, customerId: string) => `${paymentMethodId}|${customerId}`;
