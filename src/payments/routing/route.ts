import type { PaymentProviderType } from "../../providers/types.js";

// MINIMAL version (SEAMS-34 §2, owner H2 "routing"): replaced by the owner's full router on merge.

export interface CardFacts {
  brand: string | null;
  /** first 6 digits; never more of the number */
  bin: string;
  binCountry: string | null;
}
export interface RouteInput {
  orderId: string;
  amountCents: number;
  /** upper case */
  currency: string;
  /** buyer's billing (else shipping) country, ISO alpha-2 */
  country: string | null;
  /** null before the card is typed */
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
  /** null: the default rule */
  ruleId: string | null;
  /** "default" for the default rule */
  ruleName: string;
  /** one line a merchant reads: why this provider first */
  reason: string;
}
export interface RoutingRule {
  id: string;
}

/** Pure: no I/O, no clock, deterministic for a given orderId (weights drawn from a hash of it). */
export function route(input: RouteInput, _rules: readonly RoutingRule[], _counters: RouteCounters): RouteDecision {
  return { providers: input.candidates, ruleId: null, ruleName: "default", reason: "default rule" };
}

export function cardFactsOf(cardNumber: string): CardFacts {
  const digits = cardNumber.replace(/\D/g, "");
  return { brand: null, bin: digits.slice(0, 6), binCountry: null };
}
