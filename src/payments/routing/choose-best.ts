// "Best of" targets (issue 34 item 3): the providers ordered by their recent approval rate in the
// payment's segment, with a small exploration share that puts another one first, so a provider that
// recovered is noticed (docs/orchestration.md "Success-rate routing"). Pure: route() calls it with a
// draw taken from the order id, so a decision is the same for the same order.
import type { PaymentProviderType } from "../../providers/types.js";
import type { RouteCounters } from "./route.js";

/**
 * Best rate first (ties and providers without a rate keep the given order; those without a rate come
 * after those with one). With probability `explorationPercent` % (when `draw` < that share) one of
 * the others is put first, the draw picking which, the rest keeping their order. Without any rate: the
 * given order, no exploration. `draw` is a number in [0, 1).
 */
export function chooseBest(
  providers: readonly PaymentProviderType[],
  lookup: RouteCounters["successRate"],
  cardBrand: string | null,
  currency: string,
  draw: number,
  explorationPercent = 10,
): PaymentProviderType[] {
  const rated = providers.map((provider, index) => ({ provider, index, rate: lookup(provider, cardBrand, currency)?.rate ?? null }));
  if (rated.every((r) => r.rate === null)) return [...providers];
  rated.sort((a, b) => (a.rate === null ? (b.rate === null ? a.index - b.index : 1) : b.rate === null ? -1 : b.rate - a.rate || a.index - b.index));
  const ordered = rated.map((r) => r.provider);
  const share = Math.min(Math.max(explorationPercent, 0), 100) / 100;
  if (ordered.length < 2 || !(draw >= 0 && draw < share)) return ordered;
  // The draw below the share, spread over the others: each is explored equally often.
  const pick = 1 + Math.min(ordered.length - 2, Math.floor((draw / share) * (ordered.length - 1)));
  const [explored] = ordered.splice(pick, 1);
  return [explored!, ...ordered];
}
