import type { PaymentProviderType } from "../providers/types.js";

/**
 * Normalised decline codes (issue 34 item 1, CONTRACT §42): every provider's refusal as one common
 * code and a class. Pure: no I/O. Documented per provider in docs/orchestration.md "Decline codes".
 */
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
  // Added by H1: a card or currency this acquirer does not take (another may), a saved method the
  // provider does not know, and a charge the provider may have made already (never cascaded: a
  // second provider could charge the card twice).
  "card_not_supported",
  "invalid_payment_method",
  "duplicate_transaction",
] as const;
export type DeclineCode = (typeof DECLINE_CODES)[number];
export type DeclineClass = "soft" | "hard";
export interface NormalisedDecline {
  code: DeclineCode;
  class: DeclineClass;
  /** the provider's own code (or our reason when it gave none) */
  providerCode: string;
}

/**
 * soft: the same card may succeed at another provider within the same request (the acquirer, its
 * risk rules or its link to the issuer said no); hard: never retried elsewhere (the card, the buyer's
 * account or the issuer's verdict is the problem; another acquirer reaches the same issuer).
 *
 * `insufficient_funds` is hard: the money is missing at the issuer, which every acquirer reaches
 * alike, so a cascade would only add a second decline within seconds (and count toward the card
 * networks' limits on re-attempts); the buyer's next step is another card.
 */
export const DECLINE_CLASSES: Readonly<Record<DeclineCode, DeclineClass>> = {
  card_declined: "soft",
  do_not_honor: "soft",
  processing_error: "soft",
  issuer_unavailable: "soft",
  provider_timeout: "soft",
  card_not_supported: "soft",
  insufficient_funds: "hard",
  expired_card: "hard",
  incorrect_cvc: "hard",
  authentication_required: "hard",
  fraudulent: "hard",
  lost_or_stolen: "hard",
  invalid_number: "hard",
  velocity_exceeded: "hard",
  invalid_payment_method: "hard",
  duplicate_transaction: "hard",
};

/**
 * Codes of PaymentIntents-style APIs (intent_gateway's `decline_code`/`code`, cart_gateway's
 * `error.code`), and the reasons our demo adapters give, which are common codes already.
 */
const CARD_API_CODES: Readonly<Record<string, DeclineCode>> = {
  generic_decline: "card_declined",
  card_declined: "card_declined",
  declined: "card_declined",
  no_action_taken: "card_declined",
  not_permitted: "card_declined",
  transaction_not_allowed: "card_declined",
  revocation_of_authorization: "card_declined",
  stop_payment_order: "card_declined",
  payment_declined: "card_declined",
  do_not_honor: "do_not_honor",
  call_issuer: "do_not_honor",
  insufficient_funds: "insufficient_funds",
  expired_card: "expired_card",
  invalid_expiry_month: "expired_card",
  invalid_expiry_year: "expired_card",
  invalid_expiry_date: "expired_card",
  incorrect_cvc: "incorrect_cvc",
  invalid_cvc: "incorrect_cvc",
  incorrect_cvv: "incorrect_cvc",
  invalid_cvv: "incorrect_cvc",
  processing_error: "processing_error",
  reenter_transaction: "processing_error",
  config_error: "processing_error",
  generic_error: "processing_error",
  issuer_not_available: "issuer_unavailable",
  issuer_unavailable: "issuer_unavailable",
  try_again_later: "issuer_unavailable",
  authentication_required: "authentication_required",
  authentication_failed: "authentication_required",
  fraudulent: "fraudulent",
  merchant_blacklist: "fraudulent",
  security_violation: "fraudulent",
  lost_card: "lost_or_stolen",
  stolen_card: "lost_or_stolen",
  pickup_card: "lost_or_stolen",
  pick_up_card: "lost_or_stolen",
  restricted_card: "lost_or_stolen",
  lost_or_stolen: "lost_or_stolen",
  incorrect_number: "invalid_number",
  invalid_number: "invalid_number",
  invalid_account: "invalid_number",
  new_account_information_available: "invalid_number",
  card_velocity_exceeded: "velocity_exceeded",
  withdrawal_count_limit_exceeded: "velocity_exceeded",
  velocity_exceeded: "velocity_exceeded",
  card_not_supported: "card_not_supported",
  currency_not_supported: "card_not_supported",
  unsupported_feature: "card_not_supported",
  invalid_payment_method: "invalid_payment_method",
  duplicate_transaction: "duplicate_transaction",
  provider_timeout: "provider_timeout",
};

/** The direct-post vault wire's `response_code` of a `response=2` (declined) or `3` answer (docs/providers.md). */
const VAULT_RESPONSE_CODES: Readonly<Record<string, DeclineCode>> = {
  "200": "card_declined", // declined by the processor
  "201": "do_not_honor",
  "202": "insufficient_funds",
  "203": "insufficient_funds", // over limit
  "204": "card_declined", // transaction not allowed
  "220": "invalid_number", // incorrect payment information
  "221": "invalid_number", // no such card issuer
  "222": "invalid_number", // no card number on file with the issuer
  "223": "expired_card",
  "224": "expired_card", // invalid expiration date
  "225": "incorrect_cvc",
  "240": "do_not_honor", // call the issuer
  "250": "lost_or_stolen", // pick up card
  "251": "lost_or_stolen",
  "252": "lost_or_stolen",
  "253": "fraudulent",
  "260": "card_declined", // declined with further instructions
  "261": "card_declined", // stop all recurring payments
  "262": "card_declined",
  "263": "card_declined",
  "264": "card_declined",
  "300": "processing_error", // rejected by the gateway
  "400": "processing_error", // error returned by the processor
  "410": "processing_error", // invalid merchant configuration
  "411": "processing_error", // merchant account inactive
  "420": "processing_error", // communication error
  "421": "issuer_unavailable", // communication error with the issuer
  "430": "duplicate_transaction",
  "440": "processing_error",
  "441": "processing_error",
  "460": "card_not_supported", // processor feature not available
  "461": "card_not_supported", // unsupported card type
};

/** hosted_store: a failed transaction's `error_code` (snake case) and a mandate charge's user error code (lower-cased by the adapter). */
const HOSTED_STORE_CODES: Readonly<Record<string, DeclineCode>> = {
  ...CARD_API_CODES,
  incorrect_zip: "card_declined",
  incorrect_address: "card_declined",
  invalid_country: "card_not_supported",
  test_mode_live_card: "card_not_supported",
  invalid_amount: "processing_error",
};

/**
 * The order CRMs answer a decline with text: order_crm_a's `decline_reason` (the adapter's snake
 * case of it), order_crm_b's ERROR `message`. Their exact codes first, then words in the text.
 */
const ORDER_CRM_A_CODES: Readonly<Record<string, DeclineCode>> = { ...CARD_API_CODES, "800": "card_declined" };
const ORDER_CRM_B_CODES: Readonly<Record<string, DeclineCode>> = { ...CARD_API_CODES, this_transaction_has_been_declined: "card_declined", upsale_declined: "card_declined" };

/** One table per provider: the provider's own refusal code → the common code (lower case keys). */
export const PROVIDER_DECLINE_CODES: Readonly<Record<PaymentProviderType, Readonly<Record<string, DeclineCode>>>> = {
  intent_gateway: CARD_API_CODES,
  vault_gateway_a: { ...CARD_API_CODES, ...VAULT_RESPONSE_CODES },
  vault_gateway_b: { ...CARD_API_CODES, ...VAULT_RESPONSE_CODES },
  order_crm_a: ORDER_CRM_A_CODES,
  order_crm_b: ORDER_CRM_B_CODES,
  hosted_store: HOSTED_STORE_CODES,
  cart_gateway: CARD_API_CODES,
};

/** Words in a provider's decline text, most specific first (free-text answers: the order CRMs). */
const TEXT_PATTERNS: readonly [RegExp, DeclineCode][] = [
  [/insufficient|nsf|over_?limit|not_sufficient/, "insufficient_funds"],
  [/do_not_hono(u)?r/, "do_not_honor"],
  [/cvv|cvc|security_code/, "incorrect_cvc"],
  [/expir/, "expired_card"],
  [/lost|stolen|pick_?up/, "lost_or_stolen"],
  [/fraud/, "fraudulent"],
  [/velocity|count_limit|too_many/, "velocity_exceeded"],
  [/invalid_card|card_number|invalid_account|no_such_issuer/, "invalid_number"],
  [/issuer.*(unavailable|inoperative|not_available)|try_again/, "issuer_unavailable"],
  [/3d|three_d|authenticat/, "authentication_required"],
  [/duplicate/, "duplicate_transaction"],
  [/timeout|timed_out/, "provider_timeout"],
  [/processing|gateway_error|system_error/, "processing_error"],
  [/declin/, "card_declined"],
];

/** Lower case, runs of anything else than letters and digits as `_`: "Do Not Honor" → "do_not_honor". */
const keyOf = (code: string) =>
  code
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");

const normalised = (code: DeclineCode, providerCode: string): NormalisedDecline => ({ code, class: DECLINE_CLASSES[code], providerCode });

/** The longest provider code we keep (a free-text message is cut): stored and sent, never card data. */
const MAX_PROVIDER_CODE = 64;

/** A provider's refusal ({status:"declined", reason, providerCode?} of a ChargeOutcome) as a common code and class. */
export function normaliseDecline(provider: PaymentProviderType, decline: { reason: string; providerCode?: string }): NormalisedDecline {
  const own = decline.providerCode?.trim() ? decline.providerCode.trim() : decline.reason;
  const table = PROVIDER_DECLINE_CODES[provider] ?? CARD_API_CODES;
  const code =
    table[keyOf(own)] ??
    TEXT_PATTERNS.find(([pattern]) => pattern.test(keyOf(own)))?.[1] ??
    table[keyOf(decline.reason)] ??
    TEXT_PATTERNS.find(([pattern]) => pattern.test(keyOf(decline.reason)))?.[1] ??
    "card_declined";
  return normalised(code, own.slice(0, MAX_PROVIDER_CODE));
}

/** A provider that failed (ProviderError: timeout, 5xx, unreadable): soft, "provider_timeout" or "processing_error". */
export function normaliseFailure(provider: PaymentProviderType, error: { message: string; retryable: boolean }): NormalisedDecline {
  const code: DeclineCode = /timeout|timed out/i.test(error.message) ? "provider_timeout" : "processing_error";
  return normalised(code, error.message.slice(0, MAX_PROVIDER_CODE));
}
