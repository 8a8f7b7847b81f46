// The checkout's card helpers (web/src/shared/card.ts, shared with the upsell page) and error sentences (web/src/checkout/messages.ts).
import { describe, expect, it } from "vitest";
import { brandOf, cardNumberProblem, cvcProblem, expiryProblem, formatExpiry, groupCardNumber, parseExpiry } from "../../web/src/shared/card.js";
import { countryList } from "../../web/src/checkout/countries.js";
import { explainPaymentError, waitText } from "../../web/src/checkout/messages.js";
import { ApiError } from "../../web/src/shared/api.js";

describe("card fields", () => {
  it("groups the number as typed: fours, Amex 4-6-5", () => {
    expect(groupCardNumber("4242424242424242")).toBe("4242 4242 4242 4242");
    expect(groupCardNumber("42424")).toBe("4242 4");
    expect(groupCardNumber("378282246310005")).toBe("3782 822463 10005");
  });

  it("names the brand from the prefix", () => {
    expect(brandOf("4242").name).toBe("Visa");
    expect(brandOf("5555").name).toBe("Mastercard");
    expect(brandOf("2221").name).toBe("Mastercard");
    expect(brandOf("3782").name).toBe("American Express");
    expect(brandOf("6011").name).toBe("Discover");
    expect(brandOf("3530").name).toBe("JCB");
    expect(brandOf("9").name).toBe("");
  });

  it("checks Luhn, expiry and the security code's length", () => {
    expect(cardNumberProblem("4242 4242 4242 4242")).toBeUndefined();
    expect(cardNumberProblem("4242 4242 4242 4241")).toMatch(/not valid/);
    expect(cardNumberProblem("")).toBe("Enter your card number.");
    const now = new Date(2026, 10, 26);
    expect(expiryProblem("11 / 26", now)).toBeUndefined();
    expect(expiryProblem("10 / 26", now)).toBe("This card has expired. Use another card.");
    expect(expiryProblem("13 / 30", now)).toMatch(/MM \/ YY/);
    expect(expiryProblem("", now)).toMatch(/Enter the expiry date/);
    expect(cvcProblem("123", "4242")).toBeUndefined();
    expect(cvcProblem("123", "3782")).toMatch(/4-digit/);
    expect(cvcProblem("1234", "3782")).toBeUndefined();
  });

  it("shows the expiry as MM / YY while typing and reads it back", () => {
    expect(formatExpiry("1", "")).toBe("1");
    expect(formatExpiry("4", "")).toBe("04 / ");
    expect(formatExpiry("12", "1")).toBe("12 / ");
    expect(formatExpiry("12 / 3", "12 / ")).toBe("12 / 3");
    expect(formatExpiry("12 /", "12 / ")).toBe("1");
    expect(formatExpiry("1231", "")).toBe("12 / 31");
    expect(parseExpiry("12 / 31")).toEqual({ month: "12", year: "2031" });
    expect(parseExpiry("12 / 3")).toBeNull();
  });

  it("lists every ISO 3166 country once, named by the browser", () => {
    const list = countryList("en");
    expect(list).toHaveLength(249);
    expect(new Set(list.map((c) => c.code)).size).toBe(249);
    expect(list.find((c) => c.code === "GB")?.name).toBe("United Kingdom");
  });
});

describe("payment errors in the buyer's words", () => {
  it("maps decline reasons to sentences, never the API's text", () => {
    expect(explainPaymentError(new ApiError(402, "Payment failed: card_declined", "PAYMENT_FAILED", "card_declined")).text).toBe("Your card was declined. Try another card.");
    expect(explainPaymentError(new ApiError(402, "Payment failed: insufficient_funds", "PAYMENT_FAILED", "insufficient_funds")).text).toBe("Your card has insufficient funds. Try another card.");
    expect(explainPaymentError(new ApiError(402, "Payment failed: x", "PAYMENT_FAILED", "something_new")).text).toBe("Your card was declined. Try another card.");
  });

  it("says when to try again after the decline limit", () => {
    expect(explainPaymentError(new ApiError(429, "Too many", "TOO_MANY_DECLINES", undefined, undefined, 600)).text).toBe("Too many payment attempts. For your security, please try again in 10 minutes.");
    expect(waitText(30)).toBe("in 30 seconds");
    expect(waitText(3600)).toBe("in 60 minutes");
    expect(waitText(7200)).toBe("in 2 hours");
  });

  it("names the field of a refused card field", () => {
    expect(explainPaymentError(new ApiError(400, "Invalid request: the card has expired", "VALIDATION_ERROR", "cardExpYear"))).toEqual({ text: "Check the expiry date: the card may have expired.", field: "cardExp" });
  });
});
