// Normalised decline codes (issue 34 item 1): each provider's own refusal codes, as its adapter
// hands them over ({ reason, providerCode }), become one common code and a class.
import { describe, expect, it } from "vitest";
import { PAYMENT_PROVIDERS, type PaymentProviderType } from "../providers/types.js";
import { DECLINE_CLASSES, DECLINE_CODES, normaliseDecline, normaliseFailure, PROVIDER_DECLINE_CODES, type DeclineClass, type DeclineCode } from "./decline-codes.js";

type Row = [provider: PaymentProviderType, reason: string, providerCode: string | undefined, code: DeclineCode, cls: DeclineClass, kept: string];

const rows: Row[] = [
  // intent_gateway: decline_code (else code) of a card_error or a failed intent
  ["intent_gateway", "generic_decline", "generic_decline", "card_declined", "soft", "generic_decline"],
  ["intent_gateway", "do_not_honor", "do_not_honor", "do_not_honor", "soft", "do_not_honor"],
  ["intent_gateway", "insufficient_funds", "insufficient_funds", "insufficient_funds", "hard", "insufficient_funds"],
  ["intent_gateway", "issuer_not_available", "issuer_not_available", "issuer_unavailable", "soft", "issuer_not_available"],
  ["intent_gateway", "stolen_card", "stolen_card", "lost_or_stolen", "hard", "stolen_card"],
  ["intent_gateway", "card_velocity_exceeded", "card_velocity_exceeded", "velocity_exceeded", "hard", "card_velocity_exceeded"],
  ["intent_gateway", "authentication_failed", undefined, "authentication_required", "hard", "authentication_failed"],
  ["intent_gateway", "invalid_cvc", "invalid_cvc", "incorrect_cvc", "hard", "invalid_cvc"],
  // the direct-post vault wire: reason card_declined, response_code as the provider's code
  ["vault_gateway_a", "card_declined", "200", "card_declined", "soft", "200"],
  ["vault_gateway_a", "card_declined", "201", "do_not_honor", "soft", "201"],
  ["vault_gateway_a", "card_declined", "202", "insufficient_funds", "hard", "202"],
  ["vault_gateway_a", "card_declined", "223", "expired_card", "hard", "223"],
  ["vault_gateway_a", "card_declined", "225", "incorrect_cvc", "hard", "225"],
  ["vault_gateway_a", "card_declined", "251", "lost_or_stolen", "hard", "251"],
  ["vault_gateway_a", "card_declined", "253", "fraudulent", "hard", "253"],
  ["vault_gateway_b", "card_declined", "421", "issuer_unavailable", "soft", "421"],
  ["vault_gateway_b", "card_declined", "430", "duplicate_transaction", "hard", "430"],
  ["vault_gateway_b", "card_declined", "999", "card_declined", "soft", "999"],
  ["vault_gateway_b", "card_declined", undefined, "card_declined", "soft", "card_declined"],
  // order_crm_a: decline_reason in snake case
  ["order_crm_a", "insufficient_funds", "insufficient_funds", "insufficient_funds", "hard", "insufficient_funds"],
  ["order_crm_a", "do_not_honor", "do_not_honor", "do_not_honor", "soft", "do_not_honor"],
  ["order_crm_a", "invalid_cvv2_response", "invalid_cvv2_response", "incorrect_cvc", "hard", "invalid_cvv2_response"],
  ["order_crm_a", "card_declined", "card_declined", "card_declined", "soft", "card_declined"],
  // order_crm_b: the ERROR message
  ["order_crm_b", "card_declined", "This transaction has been declined", "card_declined", "soft", "This transaction has been declined"],
  ["order_crm_b", "card_declined", "Declined: Insufficient Funds", "insufficient_funds", "hard", "Declined: Insufficient Funds"],
  ["order_crm_b", "card_declined", "Declined: Lost Card", "lost_or_stolen", "hard", "Declined: Lost Card"],
  ["order_crm_b", "card_declined", "Issuer or switch inoperative", "issuer_unavailable", "soft", "Issuer or switch inoperative"],
  // hosted_store: transaction error_code, mandate user error code
  ["hosted_store", "card_declined", "incorrect_number", "invalid_number", "hard", "incorrect_number"],
  ["hosted_store", "card_declined", "call_issuer", "do_not_honor", "soft", "call_issuer"],
  ["hosted_store", "payment_declined", "payment_declined", "card_declined", "soft", "payment_declined"],
  ["hosted_store", "card_declined", "processing_error", "processing_error", "soft", "processing_error"],
  // cart_gateway: error.code of a 402
  ["cart_gateway", "card_declined", "card_declined", "card_declined", "soft", "card_declined"],
  ["cart_gateway", "expired_card", "expired_card", "expired_card", "hard", "expired_card"],
  ["cart_gateway", "invalid_payment_method", undefined, "invalid_payment_method", "hard", "invalid_payment_method"],
  ["cart_gateway", "something_new", "something_new", "card_declined", "soft", "something_new"],
];

describe("normaliseDecline", () => {
  it.each(rows)("%s %s/%s → %s (%s)", (provider, reason, providerCode, code, cls, kept) => {
    expect(normaliseDecline(provider, { reason, providerCode })).toEqual({ code, class: cls, providerCode: kept });
  });

  // The demo adapters' test-card reasons are common codes already, at every provider.
  const demoReasons: [string, DeclineCode, DeclineClass][] = [
    ["card_declined", "card_declined", "soft"],
    ["insufficient_funds", "insufficient_funds", "hard"],
    ["authentication_required", "authentication_required", "hard"],
    ["do_not_honor", "do_not_honor", "soft"],
    ["issuer_unavailable", "issuer_unavailable", "soft"],
    ["lost_or_stolen", "lost_or_stolen", "hard"],
    ["incorrect_cvc", "incorrect_cvc", "hard"],
  ];
  it.each(PAYMENT_PROVIDERS.flatMap((p) => demoReasons.map(([reason, code, cls]) => [p, reason, code, cls] as const)))("demo %s %s → %s", (provider, reason, code, cls) => {
    expect(normaliseDecline(provider, { reason, providerCode: reason })).toEqual({ code, class: cls, providerCode: reason });
  });

  it("keeps at most 64 characters of a provider's free text", () => {
    expect(normaliseDecline("order_crm_b", { reason: "card_declined", providerCode: "x".repeat(300) }).providerCode).toHaveLength(64);
  });
});

describe("the tables", () => {
  it("give every common code a class, and every provider a table of common codes", () => {
    expect(Object.keys(DECLINE_CLASSES).sort()).toEqual([...DECLINE_CODES].sort());
    for (const provider of PAYMENT_PROVIDERS) {
      for (const code of Object.values(PROVIDER_DECLINE_CODES[provider])) expect(DECLINE_CODES).toContain(code);
    }
  });

  it("class the issue's codes as it says", () => {
    const soft: DeclineCode[] = ["do_not_honor", "card_declined", "processing_error", "issuer_unavailable", "provider_timeout"];
    const hard: DeclineCode[] = ["fraudulent", "lost_or_stolen", "invalid_number", "expired_card", "incorrect_cvc", "authentication_required", "velocity_exceeded", "insufficient_funds"];
    for (const code of soft) expect(DECLINE_CLASSES[code]).toBe("soft");
    for (const code of hard) expect(DECLINE_CLASSES[code]).toBe("hard");
  });
});

describe("normaliseFailure", () => {
  it.each([
    [{ message: "timeout", retryable: true }, "provider_timeout"],
    [{ message: "api.example.com timeout", retryable: true }, "provider_timeout"],
    [{ message: "HTTP 503", retryable: true }, "processing_error"],
    [{ message: "unreadable response", retryable: false }, "processing_error"],
  ] as const)("%o → %s, soft", (error, code) => {
    expect(normaliseFailure("cart_gateway", error)).toEqual({ code, class: "soft", providerCode: error.message });
  });
});
