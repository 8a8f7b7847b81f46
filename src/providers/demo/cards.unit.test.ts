// The demo test cards and card checks of CONTRACT §25, as pure functions: Luhn, month, two- and
// four-digit expiry years, and which behaviour each test card has.
import { describe, expect, it } from "vitest";
import { AppError } from "../../lib/errors.js";
import { PAYMENT_PROVIDERS } from "../types.js";
import { assertCardAcceptable, cardLast4, isLuhnValid, ORCHESTRATION_TEST_CARDS, SOFT_DECLINE_AT, testCardBehaviour } from "./cards.js";

const NOW = Date.UTC(2026, 10, 22, 12); // 22 November 2026
const card = (overrides: Record<string, string> = {}) => ({ cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123", ...overrides });

function refusal(overrides: Record<string, string>): { code: string; details?: string; message: string } | null {
  try {
    assertCardAcceptable(card(overrides), NOW);
    return null;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { code: error.code, details: error.details, message: error.message };
  }
}

describe("isLuhnValid", () => {
  it.each(["4242424242424242", "4000000000000002", "4000000000009995", "4000000000003220", "4000000000000341", "5555555555554444", "378282246310005"])("accepts %s", (n) => {
    expect(isLuhnValid(n)).toBe(true);
  });
  it.each(["4242424242424241", "1234567890123456", "42424242", "4242abcd42424242", ""])("refuses %s", (n) => {
    expect(isLuhnValid(n)).toBe(false);
  });
});

describe("assertCardAcceptable", () => {
  it("accepts a valid card, with spaces in the number, and the current month", () => {
    expect(refusal({})).toBeNull();
    expect(refusal({ cardNumber: "4242 4242 4242 4242" })).toBeNull();
    expect(refusal({ cardExpMonth: "11", cardExpYear: "2026" })).toBeNull();
    expect(refusal({ cardExpMonth: "11", cardExpYear: "26" })).toBeNull();
    expect(refusal({ cardExpMonth: "1", cardExpYear: "27" })).toBeNull();
  });

  it.each([
    [{ cardNumber: "4242424242424241" }, "cardNumber"],
    [{ cardNumber: "not a number" }, "cardNumber"],
    [{ cardExpMonth: "0" }, "cardExpMonth"],
    [{ cardExpMonth: "13" }, "cardExpMonth"],
    [{ cardExpMonth: "ab" }, "cardExpMonth"],
    [{ cardExpYear: "202" }, "cardExpYear"],
    [{ cardExpYear: "2025" }, "cardExpYear"],
    [{ cardExpYear: "25" }, "cardExpYear"],
    [{ cardExpMonth: "10", cardExpYear: "2026" }, "cardExpMonth"],
    [{ cardExpMonth: "10", cardExpYear: "26" }, "cardExpMonth"],
    [{ cardCvv: "12" }, "cardCvv"],
  ])("refuses %o naming %s", (overrides, field) => {
    const error = refusal(overrides);
    expect(error).toMatchObject({ code: "VALIDATION_ERROR", details: field });
    expect(error!.message).not.toContain("4242424242424241");
  });
});

describe("testCardBehaviour", () => {
  it.each([
    ["4242424242424242", { kind: "succeed", cardBehaviour: null }],
    ["4000000000000002", { kind: "decline", reason: "card_declined" }],
    ["4000000000009995", { kind: "decline", reason: "insufficient_funds" }],
    ["4000000000003220", { kind: "requires_action" }],
    ["4000000000000341", { kind: "succeed", cardBehaviour: "decline_saved_charges" }],
    ["4000000000005126", { kind: "succeed", cardBehaviour: "refund_fails" }],
    ["4000 0000 0000 0002", { kind: "decline", reason: "card_declined" }],
  ])("%s", (number, behaviour) => {
    expect(testCardBehaviour(number)).toEqual(behaviour);
  });

  // Issue 34's cards: a soft decline at one vault gateway only, hard declines at every provider.
  it.each(PAYMENT_PROVIDERS)("the orchestration cards at %s", (provider) => {
    const succeed = { kind: "succeed", cardBehaviour: null };
    expect(testCardBehaviour(ORCHESTRATION_TEST_CARDS.softDeclineAtVaultGatewayA, provider)).toEqual(provider === "vault_gateway_a" ? { kind: "decline", reason: "do_not_honor" } : succeed);
    expect(testCardBehaviour(ORCHESTRATION_TEST_CARDS.softDeclineAtVaultGatewayB, provider)).toEqual(provider === "vault_gateway_b" ? { kind: "decline", reason: "issuer_unavailable" } : succeed);
    expect(testCardBehaviour(ORCHESTRATION_TEST_CARDS.lostOrStolen, provider)).toEqual({ kind: "decline", reason: "lost_or_stolen" });
    expect(testCardBehaviour(ORCHESTRATION_TEST_CARDS.incorrectCvc, provider)).toEqual({ kind: "decline", reason: "incorrect_cvc" });
  });

  it.each(PAYMENT_PROVIDERS)("SOFT_DECLINE_AT: at %s, only that provider's card soft-declines", (provider) => {
    const succeed = { kind: "succeed", cardBehaviour: null };
    for (const [at, { card: number, reason }] of Object.entries(SOFT_DECLINE_AT)) {
      expect(testCardBehaviour(number, provider)).toEqual(provider === at ? { kind: "decline", reason } : succeed);
    }
  });

  it.each([...Object.values(ORCHESTRATION_TEST_CARDS), ...Object.values(SOFT_DECLINE_AT).map((c) => c.card)])("%s is Luhn-valid", (number) => {
    expect(isLuhnValid(number)).toBe(true);
  });

  it("keeps only the last four digits", () => {
    expect(cardLast4("4242 4242 4242 4242")).toBe("4242");
  });
});
