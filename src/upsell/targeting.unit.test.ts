// Targeting rules (SPEC "Targeting rules"): each rule alone, combined, and the any-match decision.
import { describe, expect, it } from "vitest";
import { isOfferEligible } from "./targeting.js";

const cart = (cartTotal: number, purchasedProductIds: string[] = []) => ({ cartTotal, purchasedProductIds });

describe("isOfferEligible", () => {
  it("shows an offer without rules", () => {
    expect(isOfferEligible(undefined, cart(0))).toBe(true);
    expect(isOfferEligible({}, cart(0))).toBe(true);
  });

  it("minCartValue: shown from the minimum up", () => {
    expect(isOfferEligible({ minCartValue: 5000 }, cart(4999))).toBe(false);
    expect(isOfferEligible({ minCartValue: 5000 }, cart(5000))).toBe(true);
  });

  it("productIds: shown when any listed product was purchased", () => {
    expect(isOfferEligible({ productIds: ["a", "b"] }, cart(0, ["b"]))).toBe(true);
    expect(isOfferEligible({ productIds: ["a", "b"] }, cart(0, ["c"]))).toBe(false);
    expect(isOfferEligible({ productIds: [] }, cart(0, []))).toBe(true);
  });

  it("excludeProductIds: hidden when any listed product was purchased", () => {
    expect(isOfferEligible({ excludeProductIds: ["a", "b"] }, cart(0, ["b"]))).toBe(false);
    expect(isOfferEligible({ excludeProductIds: ["a", "b"] }, cart(0, ["c"]))).toBe(true);
  });

  it("combined: every present rule must hold", () => {
    const rules = { minCartValue: 1000, productIds: ["kit"], excludeProductIds: ["refill"] };
    expect(isOfferEligible(rules, cart(1000, ["kit"]))).toBe(true);
    expect(isOfferEligible(rules, cart(999, ["kit"]))).toBe(false);
    expect(isOfferEligible(rules, cart(1000, ["mug"]))).toBe(false);
    expect(isOfferEligible(rules, cart(1000, ["kit", "refill"]))).toBe(false);
  });
});
