// The pure rule of commissions following the money (CONTRACT §38): what is still owed after money went
// back, and what that does to a commission of each status.
import { describe, expect, it } from "vitest";
import { moneyMove, owedAfter } from "./follow-money.js";

describe("owedAfter", () => {
  it("is the base pro rata to what is left of the charge, rounded, and 0 once everything went back", () => {
    expect(owedAfter(100, 1000, 0)).toBe(100);
    expect(owedAfter(100, 1000, 300)).toBe(70);
    expect(owedAfter(150, 1000, 666)).toBe(50);
    expect(owedAfter(100, 1000, 1000)).toBe(0);
    expect(owedAfter(100, 1000, 1200)).toBe(0);
    expect(owedAfter(100, 0, 0)).toBe(0);
  });
});

describe("moneyMove", () => {
  it("cancels a pending or approved commission when nothing is owed, else reduces it to what is owed", () => {
    for (const status of ["pending", "approved"] as const) {
      expect(moneyMove(status, 100, 0, 0)).toEqual({ kind: "cancel" });
      expect(moneyMove(status, 100, 0, 70)).toEqual({ kind: "reduce", amount: -30 });
      expect(moneyMove(status, 70, 0, 70)).toEqual({ kind: "none" });
    }
  });

  it("claws back from a paid one what was paid beyond what is owed, counting earlier clawbacks", () => {
    expect(moneyMove("paid", 100, 0, 70)).toEqual({ kind: "clawback", amount: -30 });
    expect(moneyMove("paid", 100, -30, 0)).toEqual({ kind: "clawback", amount: -70 });
    expect(moneyMove("paid", 100, -100, 0)).toEqual({ kind: "none" });
  });

  it("leaves cancelled and disputed commissions alone (a disputed one is judged by the status it held)", () => {
    expect(moneyMove("cancelled", 100, 0, 0)).toEqual({ kind: "none" });
    expect(moneyMove("disputed", 100, 0, 0)).toEqual({ kind: "none" });
  });
});
