import type { PaymentProviderType } from "../providers/types.js";

// MINIMAL version (SEAMS-34 §1, owner H1 "declines"): replaced by the owner's full table on merge.

export const DECLINE_CODES = [
  "card_declined",
  "insufficient_funds",
  "do_not_honor",
  "expired_card",
  "incorrect_cvc",
  "processing_error",
  "issuer_unavailable",
  "authentication_required",
  "fraudulent",
  "lost_or_stolen",
  "invalid_number",
  "velocity_exceeded",
  "provider_timeout",
] as const;
export type DeclineCode = (typeof DECLINE_CODES)[number];
export type DeclineClass = "soft" | "hard";
export interface NormalisedDecline {
  code: DeclineCode;
  class: DeclineClass;
  /** the provider's own code (or our reason when it gave none) */
  providerCode: string;
}

const HARD = new Set(["fraudulent", "lost_or_stolen", "invalid_number", "expired_card", "incorrect_cvc", "authentication_required", "velocity_exceeded"]);

/** A provider's refusal ({status:"declined", reason, providerCode?} of a ChargeOutcome) as a common code and class. */
export function normaliseDecline(_provider: PaymentProviderType, decline: { reason: string; providerCode?: string }): NormalisedDecline {
  const known = (DECLINE_CODES as readonly string[]).includes(decline.reason) ? (decline.reason as DeclineCode) : "card_declined";
  return { code: known, class: HARD.has(decline.reason) ? "hard" : "soft", providerCode: decline.providerCode ?? decline.reason };
}

/** A provider that failed (ProviderError: timeout, 5xx, unreadable): soft, "provider_timeout" or "processing_error". */
export function normaliseFailure(_provider: PaymentProviderType, error: { message: string; retryable: boolean }): NormalisedDecline {
  return { code: error.retryable ? "provider_timeout" : "processing_error", class: "soft", providerCode: error.message };
}
