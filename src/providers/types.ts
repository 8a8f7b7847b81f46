import type { Logger } from "pino";
import type { Clock } from "../lib/clock.js";

import type { CrmProviderType, PaymentProviderType } from "./manifest.js";

export { CRM_PROVIDERS, PAYMENT_PROVIDERS, type CrmProviderType, type PaymentProviderType } from "./manifest.js";

/** Card fields as received. Held only for the length of a provider call: never stored, never logged. */
export interface CardInput {
  cardNumber: string;
  cardExpMonth: string;
  cardExpYear: string;
  cardCvv: string;
}

export interface PartyInput {
  email?: string;
  firstName?: string;
  lastName?: string;
  phone?: string;
}

export interface AddressInput {
  line1: string;
  line2?: string;
  city: string;
  state: string;
  postalCode: string;
  country: string;
}

/** Everything an adapter call needs besides its input. No module state, no process.env in adapters. */
export interface ProviderCall {
  /** Decrypted credentials from the brand's settings; null in demo mode. */
  credentials: Record<string, unknown> | null;
  clock: Clock;
  log: Logger;
  publicBaseUrl: string;
  idempotencyKey?: string;
  /** ALLOW_PRIVATE_WEBHOOK_URLS: calls to `baseUrl` skip the URL guard (CONTRACT §36), for tests' fakes. */
  allowPrivateUrls: boolean;
  /**
   * Demo adapters only: the brand's "Simulate outage" switch of this provider in test mode (issue 34,
   * docs/orchestration.md "Demo cards and outages"); absent: none. Real adapters never get it.
   */
  demoOutage?: DemoOutage;
}

/** `down`: the provider cannot be reached (nothing charged); `timeout`: it answers nothing for a while (it may have charged). */
export const DEMO_OUTAGES = ["down", "timeout"] as const;
export type DemoOutage = (typeof DEMO_OUTAGES)[number];

export interface InitializeInput {
  checkoutId: string;
  orderId: string;
  amountCents: number;
  currency: string;
  productName: string;
  customer: PartyInput | null;
  shippingAddress: AddressInput | null;
  billingAddress: AddressInput | null;
  lineItems: { id: string; name?: string; quantity: number; unitPrice: number }[];
}

/** clientSecret (intent_gateway), checkoutUrl (hosted_store); providerOrderId always. */
export interface InitializeOutcome {
  providerOrderId: string;
  clientSecret?: string;
  checkoutUrl?: string;
}

/** Declines and 3-D Secure steps are expected answers, so they are values; failures throw ProviderError. */
export type ChargeOutcome =
  | { status: "succeeded"; transactionId: string; paymentMethodToken?: string; providerOrderId?: string }
  | { status: "requires_action"; transactionId?: string; clientSecret?: string; redirectUrl?: string }
  | { status: "declined"; reason: string; providerCode?: string };

/** What a charge of an order must amount to: its initialized checkout's amount and currency (upper case). */
export interface ExpectedCharge {
  amountCents: number;
  currency: string;
}

/** A card charge against a provider-side order (order_crm_a, order_crm_b, cart_gateway, hosted_store): the outcome plus what was charged. */
export interface OrderCharge {
  outcome: ChargeOutcome;
  providerOrderId: string;
  amountCents: number;
  currency: string;
}

export interface OrderConfirmation {
  providerOrderId: string;
  orderId: string;
  status: "confirmed";
}

/** What the provider says about a transaction, for completion to verify (CONTRACT §19). */
export interface PaymentRecord {
  transactionId: string;
  orderId: string | null;
  providerOrderId: string | null;
  status: "succeeded" | "processing" | "requires_action" | "failed";
  amountCents: number;
  currency: string;
  /** In the provider's format (SPEC "Payment method token formats"); empty unless status is `succeeded`. */
  paymentMethodToken: string;
}

export interface SavedChargeInput {
  paymentMethodToken: string;
  amountCents: number;
  currency: string;
  /** The new order the charge is for (an upsell's orderId). */
  orderId: string;
  originalOrderId: string;
}

export interface CrmRecordInput {
  orderId: string;
  amountCents: number;
  currency: string;
  customer: PartyInput & { email: string };
  billingAddress: AddressInput;
  shippingAddress: AddressInput | null;
  lineItems: { id: string; name?: string; quantity: number; unitPrice: number }[];
  campaignId?: string;
  transactionId: string;
}

/** Money back on one charge (issue 17): the provider's transaction, never more than what is left of it. */
export interface RefundInput {
  transactionId: string;
  providerOrderId: string | null;
  orderId: string;
  amountCents: number;
  currency: string;
  reason: string;
}

/** A refusal is an expected answer (a value); failures throw ProviderError and leave the refund pending. */
export type RefundOutcome = { status: "succeeded"; providerRefundId: string } | { status: "failed"; reason: string };

/** A provider's answer to a merchant's dispute answer: taken, or refused (closed already, unknown dispute). */
export type DisputeAnswerOutcome = { status: "done" } | { status: "refused"; reason: string };

/**
 * One interface for every payment provider (STYLE "Providers"). Adapters are factories returning
 * plain objects checked with `satisfies`. They translate provider statuses, ids and token formats;
 * nothing outside providers/<name>/ knows a provider's field names. They hold no database handle
 * and never touch our tables: a demo adapter keeps its state in the DemoLedger the registry hands it.
 */
export interface PaymentProvider {
  readonly id: PaymentProviderType;
  /** True for the demo implementation used when credentials are missing. */
  readonly demo: boolean;
  initialize(input: InitializeInput, call: ProviderCall): Promise<InitializeOutcome>;
  /** Looks a transaction up at the provider; null when the provider does not know it. */
  findPayment(input: { transactionId: string; providerOrderId?: string }, call: ProviderCall): Promise<PaymentRecord | null>;
  /** One-click charge of a saved payment method (upsells). */
  chargeSaved(input: SavedChargeInput, call: ProviderCall): Promise<ChargeOutcome>;
  /**
   * Refunds part or all of a charge, exactly once per `call.idempotencyKey` (our refund id): a repeat
   * with the same key (the reconciler's, after a crash or a 502) answers the first outcome and moves no
   * more money. Each adapter's comment says how its provider makes that hold (docs/orders.md).
   */
  refund(input: RefundInput, call: ProviderCall): Promise<RefundOutcome>;
  /** Accepts (concedes) a dispute at the provider. Absent where the provider's API has no such call: the acceptance is kept with us only. */
  acceptDispute?(input: { providerDisputeId: string }, call: ProviderCall): Promise<DisputeAnswerOutcome>;
  /** Sends the merchant's evidence text for a dispute. Absent where the provider's API takes none: the text is kept with us only. */
  submitDisputeEvidence?(input: { providerDisputeId: string; evidence: string }, call: ProviderCall): Promise<DisputeAnswerOutcome>;
}

/** A CRM that records orders after payment (complete rule 1). */
export interface CrmProvider {
  readonly id: CrmProviderType;
  readonly demo: boolean;
  recordOrder(input: CrmRecordInput, call: ProviderCall): Promise<{ crmOrderId: string }>;
  /** Connectivity and credentials check (POST /api/admin/test-crm); throws ProviderError on failure. */
  checkConnection?(call: ProviderCall): Promise<void>;
}

/**
 * A provider failed (timeout, 5xx, bad credentials, unreadable reply). Carries no card data.
 * `notCharged`: the provider certainly took no money (the connection was refused, a demo outage
 * `down`), so another provider may be tried at once; false (the default) when it may have charged.
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    message: string,
    readonly retryable: boolean,
    /**
     * The provider certainly did not process the request (the connection was refused, or it answered
     * that it did not take it: 429): nothing was charged, so a cascade may try the next provider (issue 34).
     */
    readonly notCharged = false,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
