import { decimalAmount } from "../../lib/money.js";
import type { PaymentProviderType } from "../../providers/types.js";
import { EXPLORATION_OPTIMISM, optimistic, RANK_OPTIMISM } from "./optimism.js";

// Issue 34 item 2 (routing rules) and item 3's "best of" target: which providers an order is charged
// through, in which order (docs/orchestration.md "Routing rules"). Pure: no I/O, no clock; the same
// order (orderId) gets the same plan, so a retry after a crash follows the plan the first try made.

export interface CardFacts {
  brand: string | null;
  /** The first 6 digits: never more of the number. */
  bin: string;
  binCountry: string | null;
}

export interface RouteInput {
  orderId: string;
  amountCents: number;
  /** Upper case. */
  currency: string;
  /** Buyer's billing (else shipping) country, ISO alpha-2. */
  country: string | null;
  /** Null before the card is typed. */
  card: CardFacts | null;
  productIds: string[];
  funnelId: string | null;
  returningBuyer: boolean;
  /** Card-taking providers this order may use, in the brand's order (enabled, configured for the order's mode, circuit not open). */
  candidates: PaymentProviderType[];
}

export interface RouteCounters {
  /** Approved volume today (UTC) of a provider in a currency, minor units: for daily caps. */
  dailyVolume(provider: PaymentProviderType, currency: string): number;
  /** Recent approval rate of a segment, or null without enough data (success-rate routing). */
  successRate(provider: PaymentProviderType, cardBrand: string | null, currency: string): { rate: number; attempts: number } | null;
}

export interface RouteDecision {
  /** Ordered: the first is charged; the rest are the cascade's order. Never empty when candidates is not empty. */
  providers: PaymentProviderType[];
  /** Null: the default rule. */
  ruleId: string | null;
  /** "default" for the default rule. */
  ruleName: string;
  /** One line a merchant reads: why this provider first. */
  reason: string;
}

/**
 * One rule of a brand's ordered list. Every condition set must hold (a list condition holds when the
 * order's value is in it); a card condition (cardBrands, binRanges, binCountries) does not hold before
 * the card is typed. Amounts are minor units of the order's currency: amountMin inclusive, amountMax
 * exclusive. binRanges are 6–8 digit prefixes, compared on the card's 6-digit BIN (their first 6 digits).
 */
export interface RoutingRule {
  /** `rul_…` */
  id: string;
  name: string;
  conditions: {
    amountMin?: number;
    amountMax?: number;
    currencies?: string[];
    /** The buyer's country (billing, else shipping). */
    countries?: string[];
    cardBrands?: string[];
    binRanges?: { from: string; to: string }[];
    binCountries?: string[];
    productIds?: string[];
    funnelIds?: string[];
    buyer?: "first" | "returning";
  };
  target:
    | { type: "provider"; provider: PaymentProviderType }
    | { type: "split"; splits: { provider: PaymentProviderType; weight: number }[] }
    | { type: "best_of"; providers: PaymentProviderType[]; explorationPercent?: number };
  /** A provider whose approved volume today in the currency reached dailyAmount (minor units) is skipped by this rule. */
  caps?: { provider: PaymentProviderType; currency: string; dailyAmount: number }[];
}

type Conditions = RoutingRule["conditions"];
type Target = RoutingRule["target"];

const DEFAULT_EXPLORATION_PERCENT = 10;

// ---------------------------------------------------------------------------------------------------
// Deterministic draws: a 32-bit FNV-1a hash of the order id and a salt, finished with murmur3's fmix32
// so consecutive ids ("ord_1", "ord_2") spread evenly; a number in [0, 1).

function draw(orderId: string, salt: string): number {
  let h = 0x811c9dc5;
  const text = `${salt}:${orderId}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

// ---------------------------------------------------------------------------------------------------
// Conditions

const has = (list: readonly string[] | undefined) => list !== undefined && list.length > 0;
const upperIncludes = (list: readonly string[], value: string) => {
  const wanted = value.toUpperCase();
  for (const item of list) if (item.toUpperCase() === wanted) return true;
  return false;
};

function conditionsHold(c: Conditions, input: RouteInput): boolean {
  if (c.amountMin !== undefined && input.amountCents < c.amountMin) return false;
  if (c.amountMax !== undefined && input.amountCents >= c.amountMax) return false;
  if (has(c.currencies) && !upperIncludes(c.currencies!, input.currency)) return false;
  if (has(c.countries) && (input.country === null || !upperIncludes(c.countries!, input.country))) return false;
  if (c.buyer !== undefined && (c.buyer === "returning") !== input.returningBuyer) return false;
  if (has(c.funnelIds) && (input.funnelId === null || !c.funnelIds!.includes(input.funnelId))) return false;
  if (has(c.productIds) && !input.productIds.some((id) => c.productIds!.includes(id))) return false;
  const card = input.card;
  if (has(c.cardBrands) && (card === null || card.brand === null || !c.cardBrands!.some((b) => b.toLowerCase() === card.brand))) return false;
  if (has(c.binCountries) && (card === null || card.binCountry === null || !upperIncludes(c.binCountries!, card.binCountry))) return false;
  if (c.binRanges !== undefined && c.binRanges.length > 0) {
    if (card === null || card.bin.length < 6) return false;
    const bin = card.bin.slice(0, 6);
    if (!c.binRanges.some((r) => bin >= r.from.slice(0, 6) && bin <= r.to.slice(0, 6))) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------
// Targets

const providersOf = (target: Target): PaymentProviderType[] =>
  target.type === "provider" ? [target.provider] : target.type === "split" ? target.splits.map((s) => s.provider) : target.providers;

/** Why a provider of a rule was left out, for the reason line. */
interface Skipped {
  provider: PaymentProviderType;
  why: string;
}

/** The rule's providers this order may use: among the candidates and under their daily cap. */
function eligibleOf(rule: RoutingRule, input: RouteInput, counters: RouteCounters, skipped: Skipped[]): Set<PaymentProviderType> {
  const eligible = new Set<PaymentProviderType>();
  for (const provider of providersOf(rule.target)) {
    if (eligible.has(provider)) continue;
    if (!input.candidates.includes(provider)) {
      skipped.push({ provider, why: "not available for this order" });
      continue;
    }
    const cap = rule.caps?.find((c) => c.provider === provider && c.currency.toUpperCase() === input.currency);
    if (cap) {
      const volume = counters.dailyVolume(provider, input.currency);
      if (volume >= cap.dailyAmount) {
        skipped.push({ provider, why: `daily cap of ${decimalAmount(cap.dailyAmount, input.currency)} ${input.currency} reached` });
        continue;
      }
    }
    eligible.add(provider);
  }
  return eligible;
}

interface Ordered {
  providers: PaymentProviderType[];
  /** Why the first one is first. */
  why: string;
}

function orderSplit(splits: { provider: PaymentProviderType; weight: number }[], eligible: Set<PaymentProviderType>, orderId: string): Ordered {
  // One entry per provider (a provider named twice adds its weights), rule order kept for ties.
  const weights = new Map<PaymentProviderType, number>();
  for (const s of splits) if (eligible.has(s.provider) && s.weight > 0) weights.set(s.provider, (weights.get(s.provider) ?? 0) + s.weight);
  const entries = [...weights];
  if (entries.length === 0) return { providers: [...eligible], why: "no positive weight left: the rule's order" };
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  let point = draw(orderId, "split") * total;
  let first = entries[entries.length - 1]![0];
  for (const [provider, weight] of entries) {
    if (point < weight) {
      first = provider;
      break;
    }
    point -= weight;
  }
  const rest = entries.filter(([p]) => p !== first).sort((a, b) => b[1] - a[1]);
  const share = Math.round((weights.get(first)! / total) * 1000) / 10;
  return {
    providers: [first, ...rest.map(([p]) => p)],
    why: `${first} drawn for this order by weight (${share}% of orders)${rest.length ? `, then by weight ${rest.map(([p]) => p).join(", ")}` : ""}`,
  };
}

function orderBestOf(target: Extract<Target, { type: "best_of" }>, eligible: Set<PaymentProviderType>, input: RouteInput, counters: RouteCounters): Ordered {
  const inOrder = target.providers.filter((p, i) => eligible.has(p) && target.providers.indexOf(p) === i);
  const brand = input.card?.brand ?? null;
  const segment = `${brand ?? "any card"} in ${input.currency}`;
  const withData: { provider: PaymentProviderType; rate: number; attempts: number }[] = [];
  const without: PaymentProviderType[] = [];
  for (const provider of inOrder) {
    const stat = counters.successRate(provider, brand, input.currency);
    if (stat) withData.push({ provider, ...stat });
    else without.push(provider);
  }
  if (withData.length === 0) return { providers: inOrder, why: `${inOrder[0]} first: no approval data yet for ${segment}, so the rule's order` };
  // Ranked by the rate given the benefit of the doubt on few recent attempts (optimism.ts); a stable sort: equal scores keep the rule's order.
  const scored = withData.map((d) => ({ ...d, score: optimistic(d, RANK_OPTIMISM), explore: optimistic(d, EXPLORATION_OPTIMISM) }));
  scored.sort((a, b) => b.score - a.score);
  const ranked = [...scored.map((d) => d.provider), ...without];
  const best = scored[0]!;
  const percent = (rate: number) => `${Math.round(rate * 1000) / 10}%`;
  const recent = (attempts: number) => Math.round(attempts * 10) / 10;
  const exploration = target.explorationPercent ?? DEFAULT_EXPLORATION_PERCENT;
  const explore = draw(input.orderId, "explore") * 100;
  if (ranked.length > 1 && explore < exploration) {
    // As chooseBest: in the first half of the share the other one least known and most promising (one
    // without data before any with data), in the second half each of the others equally often.
    const others = [...scored.slice(1), ...without.map((provider) => ({ provider, explore: Infinity }))];
    const explored =
      explore < exploration / 2 ? others.reduce((a, b) => (b.explore > a.explore ? b : a)).provider : ranked.slice(1)[Math.min(ranked.length - 2, Math.floor(draw(input.orderId, "explore-pick") * (ranked.length - 1)))]!;
    return {
      providers: [explored, ...ranked.filter((p) => p !== explored)],
      why: `${explored} first as exploration (${exploration}% of orders try another provider so a recovered one is noticed); best approval rate for ${segment}: ${best.provider} (${percent(best.rate)} of ${recent(best.attempts)} recent attempts)`,
    };
  }
  return { providers: ranked, why: `${best.provider} first: best recent approval rate for ${segment} (${percent(best.rate)} of ${recent(best.attempts)} recent attempts)` };
}

function orderTarget(rule: RoutingRule, eligible: Set<PaymentProviderType>, input: RouteInput, counters: RouteCounters): Ordered {
  const { target } = rule;
  switch (target.type) {
    case "provider":
      return { providers: [target.provider], why: `${target.provider}, the rule's provider` };
    case "split":
      return orderSplit(target.splits, eligible, input.orderId);
    case "best_of":
      return orderBestOf(target, eligible, input, counters);
  }
}

const listed = (skipped: Skipped[]) => skipped.map((s) => `${s.provider} (${s.why})`).join(", ");
const skippedText = (skipped: Skipped[]) => (skipped.length ? `; skipped: ${listed(skipped)}` : "");

/**
 * The providers an order is charged through, in order: the first rule (in the list's order) whose
 * conditions all hold and which has a provider left (among the candidates, under its daily cap)
 * decides; none: the default rule, the candidates in the brand's order.
 */
export function route(input: RouteInput, rules: readonly RoutingRule[], counters: RouteCounters): RouteDecision {
  const passed: string[] = [];
  for (const rule of rules) {
    if (!conditionsHold(rule.conditions, input)) continue;
    const skipped: Skipped[] = [];
    const eligible = eligibleOf(rule, input, counters, skipped);
    if (eligible.size === 0) {
      passed.push(`"${rule.name}" matched but none of its providers could take the order: ${listed(skipped)}`);
      continue;
    }
    const ordered = orderTarget(rule, eligible, input, counters);
    const earlier = passed.length ? `; earlier rule ${passed.join("; earlier rule ")}` : "";
    return {
      providers: ordered.providers,
      ruleId: rule.id,
      ruleName: rule.name,
      reason: `Rule "${rule.name}": ${ordered.why}${skippedText(skipped)}${earlier}.`,
    };
  }
  const earlier = passed.length ? `; rule ${passed.join("; rule ")}` : "";
  const first = input.candidates[0];
  return {
    providers: [...input.candidates],
    ruleId: null,
    ruleName: "default",
    reason: first
      ? `Default rule: ${first} first, the brand's provider order${passed.length ? earlier : rules.length ? " (no rule matched this order)" : ""}.`
      : `Default rule: no provider can take this order${earlier}.`,
  };
}

// ---------------------------------------------------------------------------------------------------
// Card facts

/** IIN ranges (first digits) of each brand, checked in this order; prefixes of 1–6 digits. */
const BRAND_RANGES: [brand: string, from: number, to: number, digits: number][] = [
  ["amex", 34, 34, 2],
  ["amex", 37, 37, 2],
  ["jcb", 3528, 3589, 4],
  ["diners", 300, 305, 3],
  ["diners", 3095, 3095, 4],
  ["diners", 36, 36, 2],
  ["diners", 38, 39, 2],
  ["visa", 4, 4, 1],
  ["mastercard", 51, 55, 2],
  ["mastercard", 2221, 2720, 4],
  ["discover", 6011, 6011, 4],
  ["discover", 644, 649, 3],
  ["discover", 65, 65, 2],
  ["unionpay", 62, 62, 2],
  ["unionpay", 81, 81, 2],
  ["maestro", 50, 50, 2],
  ["maestro", 56, 58, 2],
  ["maestro", 6304, 6304, 4],
  ["maestro", 6759, 6759, 4],
  ["maestro", 6761, 6763, 4],
];

/**
 * The issuing country of a few BINs (docs/orchestration.md "Routing rules"): the demo and test cards
 * of docs/providers.md and the well-known test numbers of the card schemes. A short, built-in table
 * for demonstrations and tests, not a BIN database: any other BIN has no country (null).
 */
const BIN_COUNTRIES: Record<string, string> = {
  "400000": "US", // 4000000000000002 and the other demo cards of docs/providers.md
  "424242": "US", // 4242424242424242
  "411111": "US", // 4111111111111111
  "401288": "US", // 4012888888881881
  "400005": "US", // 4000056655665556 (debit)
  "555555": "US", // 5555555555554444
  "510510": "US", // 5105105105105100
  "520082": "US", // 5200828282828210 (debit)
  "222300": "US", // 2223003122003222
  "378282": "US", // 378282246310005
  "371449": "US", // 371449635398431
  "601111": "US", // 6011111111111117
  "305693": "US", // 30569309025904
  "353011": "JP", // 3530111333300000
  "356600": "JP", // 3566002020360505
  "620000": "CN", // 6200000000000005
  "675964": "GB", // 6759649826438453 (Maestro UK)
};

/** Brand, 6-digit BIN and BIN country of a card number; nothing more of the number is kept. */
export function cardFactsOf(cardNumber: string): CardFacts {
  const digits = cardNumber.replace(/\D/g, "").slice(0, 6);
  let brand: string | null = null;
  for (const [name, from, to, length] of BRAND_RANGES) {
    if (digits.length < length) continue;
    const prefix = Number(digits.slice(0, length));
    if (prefix >= from && prefix <= to) {
      brand = name;
      break;
    }
  }
  return { brand, bin: digits, binCountry: BIN_COUNTRIES[digits] ?? null };
}
