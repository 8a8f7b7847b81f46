// Success rates (issue 34 item 3) in one process: a segment's rate is its approvals among its last N
// attempts (failures count as not approved), null under the minimum of attempts; chooseBest puts the
// best rate first, explores the others with the draw, and keeps the given order without data.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { ORCHESTRATION_DEFAULTS } from "../../config/orchestration-settings.js";
import { ManualClock } from "../../lib/clock.js";
import type { PaymentProviderType } from "../../providers/types.js";
import { chooseBest } from "./choose-best.js";
import { createOrchestration, type AttemptResult } from "./orchestration.js";
import type { RouteCounters } from "./route.js";

const log = pino({ level: "silent" });
const BRAND = "brd_rates";

function setup(successRates = ORCHESTRATION_DEFAULTS.successRates) {
  const o = createOrchestration({ settings: { ...ORCHESTRATION_DEFAULTS, successRates }, clock: new ManualClock(0), log });
  const record = async (n: number, result: AttemptResult, provider: PaymentProviderType = "vault_gateway_a", cardBrand: string | null = "visa", currency = "USD", livemode = true) => {
    for (let i = 0; i < n; i++) await o.record({ brandId: BRAND, livemode, provider, cardBrand, currency, result });
  };
  return { o, record };
}

describe("success rates", () => {
  it("are approvals among the segment's last N attempts, failures counting as not approved, null under the minimum", async () => {
    const { o, record } = setup({ window: 10, minAttempts: 4 });
    await record(2, "approved");
    await record(1, "failed");
    let rate = await o.successRates(BRAND, true);
    expect(rate("vault_gateway_a", "visa", "USD")).toBeNull();
    await record(1, "declined");
    rate = await o.successRates(BRAND, true);
    expect(rate("vault_gateway_a", "visa", "USD")).toEqual({ rate: 0.5, attempts: 4 });
    // 10 more approvals push every earlier attempt out of the window of 10.
    await record(10, "approved");
    expect((await o.successRates(BRAND, true))("vault_gateway_a", "visa", "USD")).toEqual({ rate: 1, attempts: 10 });
    // 3 declines: the window's rate is 7 of 10, but its last 4 (1 approved) stand from the 6 before
    // (all approved) by more than chance: a change, and the rate is the recent attempts'.
    await record(3, "declined");
    expect((await o.successRates(BRAND, true))("vault_gateway_a", "visa", "USD")).toEqual({ rate: 0.25, attempts: 4 });
  });

  it("are the whole window's while its recent attempts agree with the older ones within chance", async () => {
    const { o, record } = setup({ window: 20, minAttempts: 4 });
    await record(12, "approved");
    await record(4, "declined");
    await record(1, "approved");
    await record(1, "declined");
    await record(2, "approved");
    // Recent 3 of 4 against older 12 of 16: the window's 15 of 20.
    expect((await o.successRates(BRAND, true))("vault_gateway_a", "visa", "USD")).toEqual({ rate: 0.75, attempts: 20 });
    // A provider that dropped (30 declines after 10 approvals: its last 16 are the drop's), then
    // recovered while it got few attempts (16 approvals): each shows before the window turns over.
    const { o: recovered, record: recordRecovered } = setup({ window: 40, minAttempts: 16 });
    await recordRecovered(10, "approved");
    await recordRecovered(30, "declined");
    expect((await recovered.successRates(BRAND, true))("vault_gateway_a", "visa", "USD")).toEqual({ rate: 0, attempts: 16 });
    await recordRecovered(16, "approved");
    expect((await recovered.successRates(BRAND, true))("vault_gateway_a", "visa", "USD")).toEqual({ rate: 1, attempts: 16 });
  });

  it("keep segments apart by provider, card brand, currency and mode; an unknown or thin card brand falls back to the provider's rate in the currency", async () => {
    const { o, record } = setup({ window: 100, minAttempts: 4 });
    await record(4, "approved", "vault_gateway_a", "visa", "USD");
    await record(4, "declined", "vault_gateway_a", "mastercard", "usd");
    await record(4, "declined", "vault_gateway_b", "visa", "USD");
    await record(4, "declined", "vault_gateway_a", "visa", "EUR");
    await record(2, "approved", "vault_gateway_a", "amex", "USD");
    const rate = await o.successRates(BRAND, true);
    expect(rate("vault_gateway_a", "visa", "USD")).toEqual({ rate: 1, attempts: 4 });
    expect(rate("vault_gateway_a", "MasterCard", "USD")).toEqual({ rate: 0, attempts: 4 });
    expect(rate("vault_gateway_b", "visa", "USD")).toEqual({ rate: 0, attempts: 4 });
    expect(rate("vault_gateway_a", "visa", "EUR")).toEqual({ rate: 0, attempts: 4 });
    // Across card brands in USD: 6 approved of 10.
    expect(rate("vault_gateway_a", null, "USD")).toEqual({ rate: 0.6, attempts: 10 });
    expect(rate("vault_gateway_a", "amex", "USD")).toEqual({ rate: 0.6, attempts: 10 });
    expect(rate("intent_gateway", "visa", "USD")).toBeNull();
    expect((await o.successRates(BRAND, false))("vault_gateway_a", "visa", "USD")).toBeNull();
    expect((await o.successRates("brd_other", true))("vault_gateway_a", "visa", "USD")).toBeNull();
  });
});

describe("chooseBest", () => {
  const rates: Record<string, number> = { vault_gateway_a: 0.6, vault_gateway_b: 0.9, intent_gateway: 0.8 };
  const lookup: RouteCounters["successRate"] = (provider) => (provider in rates ? { rate: rates[provider]!, attempts: 100 } : null);
  const three: PaymentProviderType[] = ["vault_gateway_a", "vault_gateway_b", "intent_gateway"];

  it.each([
    { draw: 0.5, first: "vault_gateway_b", why: "no exploration: the best first" },
    { draw: 0.1, first: "vault_gateway_b", why: "the exploration share is below 0.1" },
    { draw: 0, first: "intent_gateway", why: "explored: the second best" },
    { draw: 0.049, first: "intent_gateway", why: "explored: the draw's lower half picks the second" },
    { draw: 0.05, first: "vault_gateway_a", why: "explored: the upper half picks the third" },
    { draw: 0.0999, first: "vault_gateway_a", why: "explored: the last of the share" },
  ])("draw $draw: $first first ($why)", ({ draw, first }) => {
    const order = chooseBest(three, lookup, "visa", "USD", draw);
    expect(order[0]).toBe(first);
    expect([...order].sort()).toEqual([...three].sort());
  });

  it("orders by rate, then the given order for ties and providers without data; keeps the given order without any data", () => {
    expect(chooseBest(three, lookup, null, "USD", 0.5)).toEqual(["vault_gateway_b", "intent_gateway", "vault_gateway_a"]);
    expect(chooseBest(["cart_gateway", ...three], lookup, null, "USD", 0.5)).toEqual(["vault_gateway_b", "intent_gateway", "vault_gateway_a", "cart_gateway"]);
    const tie: RouteCounters["successRate"] = () => ({ rate: 0.8, attempts: 50 });
    expect(chooseBest(three, tie, null, "USD", 0.5)).toEqual(three);
    expect(chooseBest(three, () => null, null, "USD", 0)).toEqual(three);
    expect(chooseBest(["vault_gateway_a"], lookup, null, "USD", 0)).toEqual(["vault_gateway_a"]);
    expect(chooseBest([], lookup, null, "USD", 0)).toEqual([]);
    expect(chooseBest(three, lookup, null, "USD", 0, 0)).toEqual(["vault_gateway_b", "intent_gateway", "vault_gateway_a"]);
  });

  it("explores each of the others equally over the share", () => {
    const firsts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const first = chooseBest(three, lookup, null, "USD", i / 10_000)[0]!;
      firsts.set(first, (firsts.get(first) ?? 0) + 1);
    }
    expect(Object.fromEntries(firsts)).toEqual({ vault_gateway_b: 9_000, intent_gateway: 500, vault_gateway_a: 500 });
  });
});
