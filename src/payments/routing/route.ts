// MINIMAL version (SEAMS-34.md §2) so the health branch compiles: the routing helper's route.ts replaces it on merge.
import type { PaymentProviderType } from "../../providers/types.js";

export interface CardFacts {
  brand: string | null;
  bin: string;
  binCountry: string | null;
}
export interface RouteInput {
  orderId: string;
  amountCents: number;
  currency: string;
  country: string | null;
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
  providers: PaymentProviderType[];
  ruleId: string | null;
  ruleName: string;
  reason: string;
}
export interface RoutingRule {
  id: string;
}

export function route(input: RouteInput, _rules: readonly RoutingRule[], _counters: RouteCounters): RouteDecision {
  return { providers: input.candidates, ruleId: null, ruleName: "default", reason: "default rule" };
}

export function cardFactsOf(cardNumber: string): CardFacts {
  const digits = cardNumber.replace(/\D/g, "");
  return { brand: null, bin: digits.slice(0, 6), binCountry: null };
}
