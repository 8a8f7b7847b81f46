// Success rates (issue 34 item 3) in one process: a segment's rate is its approved share of attempts
// aged by halves with its own attempts and with its card brand × currency's traffic (failures count as
// not approved), null under the minimum of attempts; chooseBest puts the best rate first (optimistic on
// few recent attempts), explores the most promising other in the share, and keeps the given order without data.
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
  const lookupNow = async (o: ReturnType<typeof setup>["o"], provider: PaymentProviderType = "vault_gateway_a", cardBrand: string | null = "visa", currency = "USD") =>
    (await o.successRates(BRAND, true))(provider, cardBrand, currency);

  it("are the approved share of the attempts, failures counting as not approved, null under the minimum of attempts", async () => {
    // Half-lives too long to matter here: plain shares.
    const { o, record } = setup({ halfLife: 10_000, trafficHalfLife: 1_000_000, minAttempts: 4 });
    await record(2, "approved");
    await record(1, "failed");
    expect(await lookupNow(o)).toBeNull();
    await record(1, "declined");
    const stat = await lookupNow(o);
    expect(stat!.rate).toBeCloseTo(0.5, 3);
    expect(stat!.attempts).toBeCloseTo(4, 2);
  });

  it("age with the segment's own attempts: an attempt counts half after SUCCESS_RATE_HALF_LIFE more", async () => {
    const { o, record } = setup({ halfLife: 10, trafficHalfLife: 1_000_000, minAttempts: 1 });
    await record(1, "declined");
    await record(10, "approved");
    // The decline weighs 1/2; the 10 approvals 2^(-9/10) + … + 2^0.
    const approvals = Array.from({ length: 10 }, (_, i) => Math.pow(0.5, i / 10)).reduce((a, b) => a + b, 0);
    const stat = await lookupNow(o);
    expect(stat!.attempts).toBeCloseTo(approvals + 0.5, 3);
    expect(stat!.rate).toBeCloseTo(approvals / (approvals + 0.5), 3);
    // A provider whose approvals drop shows it within a few attempts: 10 declines later its rate is under a third.
    await record(10, "declined");
    expect((await lookupNow(o))!.rate).toBeLessThan(1 / 3);
  });

  it("age with the traffic of the card brand × currency: a provider that only gets a few attempts is judged by its recent ones", async () => {
    const { o, record } = setup({ halfLife: 10_000, trafficHalfLife: 100, minAttempts: 1 });
    // 20 declines at vault_gateway_a, then 400 payments at vault_gateway_b (in visa/USD) with 4 approvals at A among them.
    await record(20, "declined");
    for (let i = 0; i < 400; i++) await record(1, "approved", i % 100 === 50 ? "vault_gateway_a" : "vault_gateway_b");
    // The 20 old declines weigh 20 × 2^(-4) (≈ 1.25, minus what the approvals' own payments add), the 4 approvals about 1.3 together.
    const stat = await lookupNow(o);
    expect(stat!.rate).toBeGreaterThan(0.5);
    expect(stat!.attempts).toBeLessThan(3);
    // The attempts still count in full for the minimum: 23 ever.
    const strict = setup({ halfLife: 10_000, trafficHalfLife: 100, minAttempts: 24 });
    await strict.record(23, "approved");
    expect(await lookupNow(strict.o)).toBeNull();
    // Traffic of another card brand or currency does not age a segment.
    const apart = setup({ halfLife: 10_000, trafficHalfLife: 100, minAttempts: 1 });
    await apart.record(4, "declined");
    await apart.record(400, "approved", "vault_gateway_b", "mastercard", "USD");
    await apart.record(400, "approved", "vault_gateway_b", "visa", "EUR");
    // (the 4 declines age only with their own 4 payments)
    expect((await lookupNow(apart.o))!.attempts).toBeCloseTo([0, 1, 2, 3].reduce((sum, k) => sum + Math.pow(0.5, k / 100), 0), 3);
  });

  it("keep segments apart by provider, card brand, currency and mode; an unknown or thin card brand falls back to the provider's rate in the currency", async () => {
    const { o, record } = setup({ halfLife: 10_000, trafficHalfLife: 1_000_000, minAttempts: 4 });
    await record(4, "approved", "vault_gateway_a", "visa", "USD");
    await record(4, "declined", "vault_gateway_a", "mastercard", "usd");
    await record(4, "declined", "vault_gateway_b", "visa", "USD");
    await record(4, "declined", "vault_gateway_a", "visa", "EUR");
    await record(2, "approved", "vault_gateway_a", "amex", "USD");
    const rate = await o.successRates(BRAND, true);
    const rounded = (stat: { rate: number; attempts: number } | null) => stat && { rate: Math.round(stat.rate * 1000) / 1000, attempts: Math.round(stat.attempts) };
    expect(rounded(rate("vault_gateway_a", "visa", "USD"))).toEqual({ rate: 1, attempts: 4 });
    expect(rounded(rate("vault_gateway_a", "MasterCard", "USD"))).toEqual({ rate: 0, attempts: 4 });
    expect(rounded(rate("vault_gateway_b", "visa", "USD"))).toEqual({ rate: 0, attempts: 4 });
    expect(rounded(rate("vault_gateway_a", "visa", "EUR"))).toEqual({ rate: 0, attempts: 4 });
    // Across card brands in USD: 6 approved of 10.
    expect(rounded(rate("vault_gateway_a", null, "USD"))).toEqual({ rate: 0.6, attempts: 10 });
    expect(rounded(rate("vault_gateway_a", "amex", "USD"))).toEqual({ rate: 0.6, attempts: 10 });
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
    { draw: 0, first: "intent_gateway", why: "explored, first half of the share: the most promising other" },
    { draw: 0.0499, first: "intent_gateway", why: "explored, first half of the share: the most promising other" },
    { draw: 0.05, first: "intent_gateway", why: "explored, second half: the draw's lower half picks the second" },
    { draw: 0.08, first: "vault_gateway_a", why: "explored, second half: the upper half picks the third" },
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

  it("gives a rate on few recent attempts the benefit of the doubt, in the ranking and in the exploration", () => {
    // 88 % on 5 recent attempts ranks above 90 % on 200: a provider back from a bad spell is tried again.
    const few: RouteCounters["successRate"] = (provider) =>
      ({ vault_gateway_a: { rate: 0.88, attempts: 5 }, vault_gateway_b: { rate: 0.9, attempts: 200 }, intent_gateway: { rate: 0.8, attempts: 100 } })[provider as "vault_gateway_a"] ?? null;
    expect(chooseBest(three, few, null, "USD", 0.5)).toEqual(["vault_gateway_a", "vault_gateway_b", "intent_gateway"]);
    // 60 % on 3 recent attempts is not ranked above 80 % on 100, but it is the one explored in the first half of the share.
    const stale: RouteCounters["successRate"] = (provider) => (provider === "vault_gateway_a" ? { rate: 0.6, attempts: 3 } : lookup(provider, null, "USD"));
    expect(chooseBest(three, stale, null, "USD", 0.5)).toEqual(["vault_gateway_b", "intent_gateway", "vault_gateway_a"]);
    expect(chooseBest(three, stale, null, "USD", 0.01)).toEqual(["vault_gateway_a", "vault_gateway_b", "intent_gateway"]);
    // A provider without data is explored before any with data.
    expect(chooseBest(["cart_gateway", ...three], lookup, null, "USD", 0.01)[0]).toBe("cart_gateway");
  });

  it("explores in the share of payments: half to the most promising other, half spread evenly", () => {
    const firsts = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const first = chooseBest(three, lookup, null, "USD", i / 10_000)[0]!;
      firsts.set(first, (firsts.get(first) ?? 0) + 1);
    }
    expect(firsts.get("vault_gateway_b")).toBe(9_000);
    // (±1: a draw on the boundary between two picks may round either way)
    expect(Math.abs(firsts.get("intent_gateway")! - 750)).toBeLessThanOrEqual(1);
    expect(Math.abs(firsts.get("vault_gateway_a")! - 250)).toBeLessThanOrEqual(1);
  });
});
