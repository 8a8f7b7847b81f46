// The refund form's amount: what a person types, in the currency's minor units.
import { describe, expect, it } from "vitest";
import { formatMoney, parseMoney } from "../../web/src/shared/money.js";

describe("parseMoney", () => {
  it.each([
    ["12.50", "EUR", 1250],
    ["12,5", "EUR", 1250],
    ["3", "USD", 300],
    [" 0.07 ", "USD", 7],
    ["1500", "JPY", 1500],
    ["2.125", "KWD", 2125],
  ])("%s %s is %i", (typed, currency, minor) => {
    expect(parseMoney(typed, currency)).toBe(minor);
  });

  it.each([["", "USD"], ["abc", "USD"], ["1.234", "USD"], ["-1", "USD"], ["12.5", "JPY"], ["1e3", "USD"]])("%j in %s is no amount", (typed, currency) => {
    expect(parseMoney(typed, currency)).toBeNull();
  });

  it("reads back what formatMoney shows, without its symbol", () => {
    expect(formatMoney(parseMoney("49.99", "EUR")!, "EUR", "en-US")).toBe("€49.99");
  });
});
