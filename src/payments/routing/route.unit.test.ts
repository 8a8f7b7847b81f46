// Issue 34 items 2 and 3: rule evaluation, table-driven (each condition, caps, the default rule, split
// determinism, best_of with and without data), weights and caps over 10 000 simulated orders, card facts.
import { describe, expect, it } from "vitest";
import type { PaymentProviderType } from "../../providers/types.js";
import { cardFactsOf, route, type RouteCounters, type RouteInput, type RoutingRule } from "./route.js";

const A: PaymentProviderType = "vault_gateway_a";
const B: PaymentProviderType = "vault_gateway_b";
const C: PaymentProviderType = "cart_gateway";
const I: PaymentProviderType = "intent_gateway";

const VISA_US = cardFactsOf("4242424242424242");
const JCB_JP = cardFactsOf("3530111333300000");

const order = (extra: Partial<RouteInput> = {}): RouteInput => ({
  orderId: "ord_1",
  amountCents: 5000,
  currency: "USD",
  country: "US",
  card: VISA_US,
  productIds: ["sku-kit"],
  funnelId: null,
  returningBuyer: false,
  candidates: [I, A, B, C],
  ...extra,
});

const NO_DATA: RouteCounters = { dailyVolume: () => 0, successRate: () => null };

/** A rule sending the orders its conditions take to vault_gateway_b. */
const ruleTo = (conditions: RoutingRule["conditions"], provider: PaymentProviderType = B): RoutingRule => ({ id: "rul_1", name: "Under test", conditions, target: { type: "provider", provider } });

describe("conditions: the rule takes the order only when each one holds", () => {
  const rows: { name: string; conditions: RoutingRule["conditions"]; input?: Partial<RouteInput>; holds: boolean }[] = [
    { name: "no condition", conditions: {}, holds: true },
    { name: "amountMin is inclusive", conditions: { amountMin: 5000 }, holds: true },
    { name: "below amountMin", conditions: { amountMin: 5001 }, holds: false },
    { name: "amountMax is exclusive", conditions: { amountMax: 5000 }, holds: false },
    { name: "below amountMax", conditions: { amountMax: 5001 }, holds: true },
    { name: "in the amount range", conditions: { amountMin: 1000, amountMax: 10000 }, holds: true },
    { name: "currency listed (any case)", conditions: { currencies: ["eur", "usd"] }, holds: true },
    { name: "currency not listed", conditions: { currencies: ["EUR"] }, holds: false },
    { name: "buyer country listed", conditions: { countries: ["US", "CA"] }, holds: true },
    { name: "buyer country not listed", conditions: { countries: ["DE"] }, holds: false },
    { name: "buyer country unknown", conditions: { countries: ["US"] }, input: { country: null }, holds: false },
    { name: "card brand listed", conditions: { cardBrands: ["visa"] }, holds: true },
    { name: "card brand not listed", conditions: { cardBrands: ["mastercard"] }, holds: false },
    { name: "card brand before the card is typed", conditions: { cardBrands: ["visa"] }, input: { card: null }, holds: false },
    { name: "BIN in a 6-digit range", conditions: { binRanges: [{ from: "424200", to: "424299" }] }, holds: true },
    { name: "BIN at a range's ends", conditions: { binRanges: [{ from: "424242", to: "424242" }] }, holds: true },
    { name: "BIN in an 8-digit range (its first 6 digits)", conditions: { binRanges: [{ from: "42424200", to: "42424299" }] }, holds: true },
    { name: "BIN outside every range", conditions: { binRanges: [{ from: "510000", to: "559999" }, { from: "400000", to: "424241" }] }, holds: false },
    { name: "BIN range before the card is typed", conditions: { binRanges: [{ from: "400000", to: "499999" }] }, input: { card: null }, holds: false },
    { name: "BIN country listed", conditions: { binCountries: ["us"] }, holds: true },
    { name: "BIN country not listed", conditions: { binCountries: ["JP"] }, holds: false },
    { name: "BIN country of a JCB card", conditions: { binCountries: ["JP"] }, input: { card: JCB_JP }, holds: true },
    { name: "BIN country unknown", conditions: { binCountries: ["US"] }, input: { card: cardFactsOf("4999990000000000") }, holds: false },
    { name: "BIN country before the card is typed", conditions: { binCountries: ["US"] }, input: { card: null }, holds: false },
    { name: "one of the order's products listed", conditions: { productIds: ["sku-other", "sku-kit"] }, holds: true },
    { name: "none of the order's products listed", conditions: { productIds: ["sku-other"] }, holds: false },
    { name: "funnel listed", conditions: { funnelIds: ["fnl_1"] }, input: { funnelId: "fnl_1" }, holds: true },
    { name: "funnel not listed", conditions: { funnelIds: ["fnl_1"] }, input: { funnelId: "fnl_2" }, holds: false },
    { name: "no funnel", conditions: { funnelIds: ["fnl_1"] }, holds: false },
    { name: "first order of a first buyer", conditions: { buyer: "first" }, holds: true },
    { name: "first order of a returning buyer", conditions: { buyer: "first" }, input: { returningBuyer: true }, holds: false },
    { name: "returning buyer", conditions: { buyer: "returning" }, input: { returningBuyer: true }, holds: true },
    { name: "returning, for a first buyer", conditions: { buyer: "returning" }, holds: false },
    { name: "all hold", conditions: { amountMin: 100, currencies: ["USD"], countries: ["US"], cardBrands: ["visa"], binCountries: ["US"], buyer: "first" }, holds: true },
    { name: "all but one hold", conditions: { amountMin: 100, currencies: ["USD"], countries: ["US"], cardBrands: ["amex"], binCountries: ["US"] }, holds: false },
  ];
  it.each(rows)("$name", ({ conditions, input, holds }) => {
    const decision = route(order(input), [ruleTo(conditions)], NO_DATA);
    if (holds) expect(decision).toMatchObject({ providers: [B], ruleId: "rul_1", ruleName: "Under test" });
    else expect(decision).toMatchObject({ providers: [I, A, B, C], ruleId: null, ruleName: "default" });
  });
});

describe("rule order, candidates, caps and the default rule", () => {
  const capped = (volumes: Partial<Record<PaymentProviderType, number>>): RouteCounters => ({ dailyVolume: (p, currency) => (currency === "USD" ? (volumes[p] ?? 0) : 0), successRate: () => null });
  const splitAB: RoutingRule = {
    id: "rul_split",
    name: "Balance",
    conditions: {},
    target: { type: "split", splits: [{ provider: A, weight: 70 }, { provider: B, weight: 30 }] },
    caps: [{ provider: A, currency: "USD", dailyAmount: 100_000 }],
  };
  const rows: { name: string; rules: RoutingRule[]; input?: Partial<RouteInput>; counters?: RouteCounters; providers: PaymentProviderType[]; ruleId: string | null; reason: RegExp }[] = [
    { name: "no rules: the candidates in the brand's order", rules: [], providers: [I, A, B, C], ruleId: null, reason: /^Default rule: intent_gateway first, the brand's provider order\.$/ },
    { name: "no rule matches", rules: [ruleTo({ currencies: ["EUR"] })], providers: [I, A, B, C], ruleId: null, reason: /no rule matched/ },
    {
      name: "the first matching rule wins",
      rules: [ruleTo({ currencies: ["EUR"] }, A), { ...ruleTo({}, C), id: "rul_2", name: "Second" }, { ...ruleTo({}, A), id: "rul_3", name: "Third" }],
      providers: [C],
      ruleId: "rul_2",
      reason: /^Rule "Second": cart_gateway, the rule's provider\.$/,
    },
    {
      name: "a provider outside the candidates is skipped: the next matching rule",
      rules: [ruleTo({}, B), { ...ruleTo({}, C), id: "rul_2", name: "Fallback" }],
      input: { candidates: [A, C] },
      providers: [C],
      ruleId: "rul_2",
      reason: /earlier rule "Under test" matched but none of its providers could take the order: vault_gateway_b \(not available for this order\)/,
    },
    {
      name: "nothing left in any rule: the default rule says why",
      rules: [ruleTo({}, B)],
      input: { candidates: [A, C] },
      providers: [A, C],
      ruleId: null,
      reason: /^Default rule: vault_gateway_a first.*"Under test" matched but none of its providers could take the order/,
    },
    {
      name: "under its cap a provider is drawn",
      rules: [{ ...splitAB, target: { type: "split", splits: [{ provider: A, weight: 1 }] } }],
      counters: capped({ [A]: 99_999 }),
      providers: [A],
      ruleId: "rul_split",
      reason: /vault_gateway_a drawn/,
    },
    {
      name: "a provider at its daily cap is skipped, and the reason says so",
      rules: [splitAB],
      counters: capped({ [A]: 100_000 }),
      providers: [B],
      ruleId: "rul_split",
      reason: /skipped: vault_gateway_a \(daily cap of 1000\.00 USD reached\)/,
    },
    {
      name: "a cap in another currency does not apply",
      rules: [{ ...splitAB, target: { type: "provider", provider: A }, caps: [{ provider: A, currency: "EUR", dailyAmount: 1 }] }],
      counters: { dailyVolume: () => 1_000_000, successRate: () => null },
      providers: [A],
      ruleId: "rul_split",
      reason: /the rule's provider\.$/,
    },
    {
      name: "every provider capped: the next rule",
      rules: [{ ...splitAB, caps: [...splitAB.caps!, { provider: B, currency: "USD", dailyAmount: 50 }] }, { ...ruleTo({}, C), id: "rul_2", name: "Overflow" }],
      counters: capped({ [A]: 200_000, [B]: 50 }),
      providers: [C],
      ruleId: "rul_2",
      reason: /Overflow.*earlier rule "Balance" matched but none.*vault_gateway_a \(daily cap.*vault_gateway_b \(daily cap of 0\.50 USD reached\)/,
    },
    { name: "no candidates at all", rules: [ruleTo({}, B)], input: { candidates: [] }, providers: [], ruleId: null, reason: /^Default rule: no provider can take this order/ },
  ];
  it.each(rows)("$name", ({ rules, input, counters, providers, ruleId, reason }) => {
    const decision = route(order(input), rules, counters ?? NO_DATA);
    expect(decision.providers).toEqual(providers);
    expect(decision.ruleId).toBe(ruleId);
    expect(decision.reason).toMatch(reason);
  });

  it("caps are honoured over 10 000 simulated orders: the capped provider takes no order once its counter reaches the cap", () => {
    const cap = 1_000_000;
    const rule: RoutingRule = { ...splitAB, caps: [{ provider: A, currency: "USD", dailyAmount: cap }] };
    const volume = new Map<PaymentProviderType, number>();
    const counters: RouteCounters = { dailyVolume: (p) => volume.get(p) ?? 0, successRate: () => null };
    let firstOrderAfterCap = -1;
    for (let i = 0; i < 10_000; i++) {
      const input = order({ orderId: `ord_cap_${i}`, amountCents: 2500 });
      const [first] = route(input, [rule], counters).providers;
      if ((volume.get(A) ?? 0) >= cap) {
        if (firstOrderAfterCap < 0) firstOrderAfterCap = i;
        expect(first).toBe(B);
      }
      volume.set(first!, (volume.get(first!) ?? 0) + input.amountCents);
    }
    expect(firstOrderAfterCap).toBeGreaterThan(0);
    // The cap is reached exactly (each approval adds 2 500) and never passed.
    expect(volume.get(A)).toBe(cap);
  });
});

describe("split: weighted, deterministic per order", () => {
  const rule = (splits: { provider: PaymentProviderType; weight: number }[]): RoutingRule => ({ id: "rul_split", name: "Split", conditions: {}, target: { type: "split", splits } });

  it("the same order always gets the same plan; the rest follow by descending weight", () => {
    const three = rule([{ provider: A, weight: 20 }, { provider: B, weight: 50 }, { provider: C, weight: 30 }]);
    for (let i = 0; i < 200; i++) {
      const input = order({ orderId: `ord_${i}` });
      const first = route(input, [three], NO_DATA);
      expect(route({ ...input }, [three], NO_DATA)).toEqual(first);
      const rest = first.providers.slice(1);
      const weight = { [A]: 20, [B]: 50, [C]: 30 } as Record<string, number>;
      expect(rest).toEqual([...rest].sort((x, y) => weight[y]! - weight[x]!));
      expect(new Set(first.providers)).toEqual(new Set([A, B, C]));
    }
  });

  it("weights are honoured over 10 000 simulated orders within 2 percentage points", () => {
    const weights: [PaymentProviderType, number][] = [[A, 50], [B, 30], [C, 15], [I, 5]];
    const split = rule(weights.map(([provider, weight]) => ({ provider, weight })));
    const counts = new Map<PaymentProviderType, number>();
    const n = 10_000;
    for (let i = 0; i < n; i++) {
      const [first] = route(order({ orderId: `ord_${(i * 7919).toString(36)}_${i}` }), [split], NO_DATA).providers;
      counts.set(first!, (counts.get(first!) ?? 0) + 1);
    }
    for (const [provider, weight] of weights) expect(Math.abs(((counts.get(provider) ?? 0) / n) * 100 - weight), provider).toBeLessThanOrEqual(2);
  });

  it("sequential order ids (ord_1, ord_2 …) are spread by weight too", () => {
    const split = rule([{ provider: A, weight: 1 }, { provider: B, weight: 1 }]);
    let a = 0;
    for (let i = 0; i < 10_000; i++) if (route(order({ orderId: `ord_${i}` }), [split], NO_DATA).providers[0] === A) a++;
    expect(Math.abs(a / 100 - 50)).toBeLessThanOrEqual(2);
  });

  it("a provider left out (not a candidate) gives its share to the others", () => {
    const split = rule([{ provider: A, weight: 90 }, { provider: B, weight: 10 }]);
    const decision = route(order({ candidates: [B, C] }), [split], NO_DATA);
    expect(decision.providers).toEqual([B]);
    expect(decision.reason).toMatch(/vault_gateway_b drawn for this order by weight \(100% of orders\); skipped: vault_gateway_a \(not available for this order\)/);
  });
});

describe("best_of: the best recent approval rate first, an exploration share to the others", () => {
  const rule = (explorationPercent?: number): RoutingRule => ({
    id: "rul_best",
    name: "Best",
    conditions: {},
    target: { type: "best_of", providers: [A, B, C], ...(explorationPercent !== undefined ? { explorationPercent } : {}) },
  });
  const rates = (table: Partial<Record<PaymentProviderType, number>>): RouteCounters => ({
    dailyVolume: () => 0,
    successRate: (p, brand, currency) => (table[p] !== undefined && brand === "visa" && currency === "USD" ? { rate: table[p]!, attempts: 200 } : null),
  });

  const rows: { name: string; counters: RouteCounters; input?: Partial<RouteInput>; providers: PaymentProviderType[]; reason: RegExp }[] = [
    { name: "no data at all: the rule's order", counters: NO_DATA, providers: [A, B, C], reason: /vault_gateway_a first: no approval data yet for visa in USD, so the rule's order/ },
    { name: "highest rate first", counters: rates({ [A]: 0.6, [B]: 0.9, [C]: 0.7 }), providers: [B, C, A], reason: /vault_gateway_b first: best recent approval rate for visa in USD \(90% of 200 recent attempts\)/ },
    { name: "providers without data after those with data, in rule order", counters: rates({ [C]: 0.5 }), providers: [C, A, B], reason: /cart_gateway first/ },
    { name: "data of another segment does not count", counters: rates({ [B]: 0.9 }), input: { currency: "EUR" }, providers: [A, B, C], reason: /no approval data yet for visa in EUR/ },
    { name: "before the card is typed the segment is any card", counters: NO_DATA, input: { card: null }, providers: [A, B, C], reason: /for any card in USD/ },
  ];
  it.each(rows)("$name", ({ counters, input, providers, reason }) => {
    // An exploration share of 0: the ranking alone.
    const decision = route(order(input), [rule(0)], counters);
    expect(decision.providers).toEqual(providers);
    expect(decision.reason).toMatch(reason);
  });

  it("about the exploration share (default 10%) of orders go first to another provider, deterministically", () => {
    const counters = rates({ [A]: 0.6, [B]: 0.9, [C]: 0.7 });
    let explored = 0;
    for (let i = 0; i < 10_000; i++) {
      const input = order({ orderId: `ord_${i}` });
      const decision = route(input, [rule()], counters);
      expect(route(input, [rule()], counters)).toEqual(decision);
      if (decision.providers[0] !== B) {
        explored++;
        expect(decision.reason).toMatch(/as exploration \(10% of orders/);
        expect(decision.providers.slice(1)).toEqual([B, C, A].filter((p) => p !== decision.providers[0]));
      }
    }
    expect(Math.abs(explored / 100 - 10)).toBeLessThanOrEqual(2);
  });

  it("gives a rate on few recent attempts the benefit of the doubt, and explores the most promising other", () => {
    // 88 % on 5 recent attempts (a provider back from a bad spell) is tried before 90 % on 200.
    const few: RouteCounters = {
      dailyVolume: () => 0,
      successRate: (p) => ({ [A]: { rate: 0.88, attempts: 5 }, [B]: { rate: 0.9, attempts: 200 }, [C]: { rate: 0.8, attempts: 200 } })[p as typeof A] ?? null,
    };
    expect(route(order(), [rule(0)], few).providers).toEqual([A, B, C]);
    // 60 % on 3 recent attempts ranks last, but half of the exploration share tries it (the other half is spread evenly):
    // about three quarters of the explorations.
    const stale: RouteCounters = { dailyVolume: () => 0, successRate: (p) => ({ [A]: { rate: 0.6, attempts: 3 }, [B]: { rate: 0.9, attempts: 200 }, [C]: { rate: 0.8, attempts: 200 } })[p as typeof A] ?? null };
    expect(route(order(), [rule(0)], stale).providers).toEqual([B, C, A]);
    const firsts = { [A]: 0, [B]: 0, [C]: 0 } as Record<PaymentProviderType, number>;
    for (let i = 0; i < 10_000; i++) {
      const decision = route(order({ orderId: `ord_${i}` }), [rule(10)], stale);
      firsts[decision.providers[0]!]++;
      if (decision.providers[0] !== B) expect(decision.providers.slice(1)).toEqual([B, C, A].filter((p) => p !== decision.providers[0]));
    }
    expect(Math.abs(firsts[A] - 750)).toBeLessThanOrEqual(100);
    expect(Math.abs(firsts[C] - 250)).toBeLessThanOrEqual(60);
  });

  it("with no data there is no exploration", () => {
    for (let i = 0; i < 1000; i++) expect(route(order({ orderId: `ord_${i}` }), [rule(50)], NO_DATA).providers).toEqual([A, B, C]);
  });
});

describe("cardFactsOf", () => {
  const rows: [number: string, brand: string | null, bin: string, binCountry: string | null][] = [
    ["4242424242424242", "visa", "424242", "US"],
    ["4000 0000 0000 0002", "visa", "400000", "US"],
    ["5555555555554444", "mastercard", "555555", "US"],
    ["2223003122003222", "mastercard", "222300", "US"],
    ["378282246310005", "amex", "378282", "US"],
    ["6011111111111117", "discover", "601111", "US"],
    ["6445644564456445", "discover", "644564", null],
    ["3530111333300000", "jcb", "353011", "JP"],
    ["30569309025904", "diners", "305693", "US"],
    ["36227206271667", "diners", "362272", null],
    ["6200000000000005", "unionpay", "620000", "CN"],
    ["6759649826438453", "maestro", "675964", "GB"],
    ["5018000000000009", "maestro", "501800", null],
    ["9999999999999999", null, "999999", null],
    ["12", null, "12", null],
  ];
  it.each(rows)("%s → %s, %s, %s", (number, brand, bin, binCountry) => {
    expect(cardFactsOf(number)).toEqual({ brand, bin, binCountry });
  });

  it("keeps nothing beyond the first six digits", () => {
    expect(JSON.stringify(cardFactsOf("4242424242424242"))).not.toContain("4242424242");
  });
});
