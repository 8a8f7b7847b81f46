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
  /** With `requires_action`: where the buyer authenticates (3-D Secure), the gateway's `next_action.redirect_to_url`. */
  nextActionUrl: string | null;
}

/** The buyer's answer on the demo bank's 3-D Secure page. */
export type ChallengeOutcome = "approve" | "fail";

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
  /**
   * With a card, attempts the payment (unless it already succeeded); without one, reads the status.
   * `returnUrl`: where the 3-D Secure step sends the buyer back to (the demo's challenge page).
   */
  confirmIntent(input: { paymentIntentId: string; card?: CardInput; returnUrl?: string }, call: ProviderCall): Promise<PaymentIntentView>;
  /**
   * Demo only: the buyer's answer on the demo bank's 3-D Secure page. Acts once, on an intent still
   * `requires_action` whose challenge is `challenge`; null when there is no such challenge.
   */
  answerChallenge?(input: { paymentIntentId: string; challenge: string; outcome: ChallengeOutcome }, call: ProviderCall): Promise<{ intent: PaymentIntentView; returnUrl: string; changed: boolean } | null>;
  /** Demo only: the open challenge's intent and return URL (null when unknown or not this challenge). */
  findChallenge?(input: { paymentIntentId: string; challenge: string }, call: ProviderCall): Promise<{ intent: PaymentIntentView; returnUrl: string } | null>;
}

/** Payment method token: `<paymentMethodId>|<customerId>` (SPEC "Payment method token formats"). */
export const intentToken = (paymentMethodId: string, customerId: string) => `${paymentMethodId}|${customerId}`;
