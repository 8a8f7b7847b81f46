import { describe, expect, it } from "vitest";
import { decimalAmount, formatMoney } from "./money.js";

describe("formatMoney", () => {
  it("writes minor units as a buyer reads them, with each currency's own digits, again and again", () => {
    for (let i = 0; i < 2; i++) {
      expect(formatMoney(4999, "EUR")).toBe("€49.99");
      expect(formatMoney(500, "JPY")).toBe("¥500");
      expect(formatMoney(123456, "USD")).toBe("$1,234.56");
    }
  });

  it("falls back to plain decimals with the code when Intl refuses the code", () => {
    expect(formatMoney(4999, "E1R")).toBe(`${decimalAmount(4999, "E1R")} E1R`);
    expect(formatMoney(4999, "E1R")).toBe("49.99 E1R");
  });
});
