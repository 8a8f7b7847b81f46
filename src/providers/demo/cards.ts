import { validationError } from "../../lib/errors.js";
import type { CardInput, PaymentProviderType } from "../types.js";

/**
 * The demo test cards of CONTRACT §25, identical on every card-taking endpoint. Any other
 * Luhn-valid number succeeds.
 */
export const TEST_CARDS = {
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
  authenticationRequired: "4000000000003220",
  declineSavedCharges: "4000000000000341",
  refundFails: "4000000000005126",
} as const;

/**
 * Demo cards that show orchestration (issue 34, docs/orchestration.md "Demo cards and outages"): a
 * soft decline at one provider only (a cascade to any other saves the sale, in either direction
 * between the two vault gateways), and hard declines at every provider (never cascaded).
 */
export const ORCHESTRATION_TEST_CARDS = {
  /** `do_not_honor` (soft) at vault_gateway_a; succeeds at every other provider. */
  softDeclineAtVaultGatewayA: "4000000000001018",
  /** `issuer_unavailable` (soft) at vault_gateway_b; succeeds at every other provider. */
  softDeclineAtVaultGatewayB: "4000000000001026",
  /** `lost_or_stolen` (hard) at every provider. */
  lostOrStolen: "4000000000009920",
  /** `incorrect_cvc` (hard) at every provider. */
  incorrectCvc: "4000000000009938",
} as const;

/**
 * One card per card-taking provider that soft-declines there only and succeeds at every other provider
 * (docs/orchestration.md "Demo cards and outages"): a cascade from any provider to any other saves the
 * sale. The vault gateways' are ORCHESTRATION_TEST_CARDS'; the others are 40000000000010xx too.
 */
export const SOFT_DECLINE_AT: Readonly<Record<CardTakingDemoProvider, { card: string; reason: string }>> = {
  vault_gateway_a: { card: ORCHESTRATION_TEST_CARDS.softDeclineAtVaultGatewayA, reason: "do_not_honor" },
  vault_gateway_b: { card: ORCHESTRATION_TEST_CARDS.softDeclineAtVaultGatewayB, reason: "issuer_unavailable" },
  order_crm_a: { card: "4000000000001034", reason: "processing_error" },
  order_crm_b: { card: "4000000000001042", reason: "do_not_honor" },
  cart_gateway: { card: "4000000000001059", reason: "issuer_unavailable" },
  intent_gateway: { card: "4000000000001067", reason: "processing_error" },
};
export type CardTakingDemoProvider = Exclude<PaymentProviderType, "hosted_store">;

/** The provider a SOFT_DECLINE_AT card soft-declines at, or undefined for any other card. */
const softDeclineProviderOf = (digits: string) => (Object.keys(SOFT_DECLINE_AT) as CardTakingDemoProvider[]).find((p) => SOFT_DECLINE_AT[p].card === digits);

/** The card a demo intent confirmed without card fields (SPEC's confirm body) is charged as: it succeeds. */
export const DEFAULT_TEST_CARD = "4242424242424242";

/** What a card does in demo mode. `requires_action` becomes a decline everywhere but the intent gateway. */
export type TestCardBehaviour =
  /** `cardBehaviour` is kept on the ledger with the charge: what the card does after it (null: nothing special). */
  | { kind: "succeed"; cardBehaviour: string | null }
  | { kind: "decline"; reason: string }
  | { kind: "requires_action" };

/** Stored on the ledger for the 4000000000000341 card: later saved-method charges decline. */
export const DECLINE_SAVED_CHARGES = "decline_saved_charges";
/** Stored on the ledger for the 4000000000005126 card: the charge succeeds, refunds of it are refused. */
export const REFUND_FAILS = "refund_fails";

/**
 * What a card does in demo mode at `provider` (the cards of SOFT_DECLINE_AT that decline at one
 * provider only succeed where no provider is named: the demo store's page).
 */
export function testCardBehaviour(cardNumber: string, provider?: PaymentProviderType): TestCardBehaviour {
  const digits = normaliseCardNumber(cardNumber);
  const softAt = softDeclineProviderOf(digits);
  if (softAt) return provider === softAt ? { kind: "decline", reason: SOFT_DECLINE_AT[softAt].reason } : { kind: "succeed", cardBehaviour: null };
  switch (digits) {
    case ORCHESTRATION_TEST_CARDS.lostOrStolen:
      return { kind: "decline", reason: "lost_or_stolen" };
    case ORCHESTRATION_TEST_CARDS.incorrectCvc:
      return { kind: "decline", reason: "incorrect_cvc" };
    case TEST_CARDS.declined:
      return { kind: "decline", reason: "card_declined" };
    case TEST_CARDS.insufficientFunds:
      return { kind: "decline", reason: "insufficient_funds" };
    case TEST_CARDS.authenticationRequired:
      return { kind: "requires_action" };
    case TEST_CARDS.declineSavedCharges:
      return { kind: "succeed", cardBehaviour: DECLINE_SAVED_CHARGES };
    case TEST_CARDS.refundFails:
      return { kind: "succeed", cardBehaviour: REFUND_FAILS };
    default:
      return { kind: "succeed", cardBehaviour: null };
  }
}

/** Spaces and dashes are how people type card numbers; nothing else is accepted. */
export function normaliseCardNumber(cardNumber: string): string {
  return cardNumber.replace(/[\s-]/g, "");
}

export function isLuhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * Refuses a card that no gateway would take (CONTRACT §25): 400 VALIDATION_ERROR naming the field.
 * Messages never echo the number. Years may have two or four digits; a card is valid through the
 * last day of its expiry month (UTC).
 */
export function assertCardAcceptable(card: CardInput, now: number): void {
  if (!isLuhnValid(normaliseCardNumber(card.cardNumber))) throw validationError("Invalid request: cardNumber is not a valid card number", "cardNumber");
  if (!/^\d{1,2}$/.test(card.cardExpMonth) || Number(card.cardExpMonth) < 1 || Number(card.cardExpMonth) > 12) {
    throw validationError("Invalid request: cardExpMonth must be a month from 1 to 12", "cardExpMonth");
  }
  if (!/^(\d{2}|\d{4})$/.test(card.cardExpYear)) throw validationError("Invalid request: cardExpYear must have two or four digits", "cardExpYear");
  if (!/^\d{3,4}$/.test(card.cardCvv)) throw validationError("Invalid request: cardCvv must have three or four digits", "cardCvv");

  const month = Number(card.cardExpMonth);
  const year = card.cardExpYear.length === 2 ? 2000 + Number(card.cardExpYear) : Number(card.cardExpYear);
  const today = new Date(now);
  const currentYear = today.getUTCFullYear();
  const currentMonth = today.getUTCMonth() + 1;
  if (year < currentYear) throw validationError("Invalid request: the card has expired", "cardExpYear");
  if (year === currentYear && month < currentMonth) throw validationError("Invalid request: the card has expired", "cardExpMonth");
}

/** The only card data the demo ledger may keep. */
export function cardLast4(cardNumber: string): string {
  return normaliseCardNumber(cardNumber).slice(-4);
}
