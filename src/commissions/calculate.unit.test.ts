// Commission maths of CONTRACT §13: percentage of the order (rounded to the cent) or a fixed amount.
import { describe, expect, it } from "vitest";
import { calculateCommission } from "./calculate.js";

describe("calculateCommission", () => {
  it("takes a percentage of the order amount by default", () => {
    expect(calculateCommission({ orderAmountCents: 10_000, commissionRate: 0.1 })).toEqual({ commissionAmountCents: 1000, commissionRate: 0.1, commissionType: "percentage" });
  });

  it("rounds half a cent up", () => {
    expect(calculateCommission({ orderAmountCents: 1005, commissionRate: 0.1 }).commissionAmountCents).toBe(101);
    expect(calculateCommission({ orderAmountCents: 1004, commissionRate: 0.1 }).commissionAmountCents).toBe(100);
  });

  it("rounds the decimal product, not its binary approximation", () => {
    // 1999 * 0.15 is 299.84999999999997 in binary floating point; the decimal 299.85 rounds to 300.
    expect(1999 * 0.15).toBeLessThan(299.85);
    expect(calculateCommission({ orderAmountCents: 1999, commissionRate: 0.15 }).commissionAmountCents).toBe(300);
    expect(calculateCommission({ orderAmountCents: 333, commissionRate: 0.333 }).commissionAmountCents).toBe(111);
  });

  it("uses the rate as cents for a fixed commission", () => {
    expect(calculateCommission({ orderAmountCents: 10_000, commissionRate: 250, commissionType: "fixed" })).toEqual({
      commissionAmountCents: 250,
      commissionRate: 250,
      commissionType: "fixed",
    });
    expect(calculateCommission({ orderAmountCents: 10_000, commissionRate: 12.5, commissionType: "fixed" }).commissionAmountCents).toBe(13);
  });

  it("gives 0 when no rate is known", () => {
    expect(calculateCommission({ orderAmountCents: 10_000 }).commissionAmountCents).toBe(0);
  });

  it("refuses a negative or non-finite rate", () => {
    expect(() => calculateCommission({ orderAmountCents: 100, commissionRate: -0.1 })).toThrow(RangeError);
    expect(() => calculateCommission({ orderAmountCents: 100, commissionRate: Number.NaN })).toThrow(RangeError);
  });

  it("rounds the edges: half a cent on one cent, just under half, large orders", () => {
    expect(calculateCommission({ orderAmountCents: 1, commissionRate: 0.5 }).commissionAmountCents).toBe(1);
    expect(calculateCommission({ orderAmountCents: 1, commissionRate: 0.49 }).commissionAmountCents).toBe(0);
    expect(calculateCommission({ orderAmountCents: 0, commissionRate: 0.3 }).commissionAmountCents).toBe(0);
    // 123 456 789 × 0.075 = 9 259 259.175 → 9 259 259; × 0.125 = 15 432 098.625 → 15 432 099.
    expect(calculateCommission({ orderAmountCents: 123_456_789, commissionRate: 0.075 }).commissionAmountCents).toBe(9_259_259);
    expect(calculateCommission({ orderAmountCents: 123_456_789, commissionRate: 0.125 }).commissionAmountCents).toBe(15_432_099);
    // 1.005 × 100 is 100.49999… in binary; the decimal product 100.5 rounds up.
    expect(calculateCommission({ orderAmountCents: 100, commissionRate: 1.005 }).commissionAmountCents).toBe(101);
  });
});
