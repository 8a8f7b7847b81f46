// "Best of" targets (issue 34 item 3): the providers ordered by their recent approval rate in the
// payment's segment, given the benefit of the doubt when it stands on few recent attempts
// (optimism.ts), with a small exploration share that puts another one first, so a provider that
// recovered is noticed (docs/orchestration.md "Success-rate routing"). Pure: the bench calls it with a
// draw taken from the order id, as route() takes it, so a decision is the same for the same order.
import type { PaymentProviderType } from "../../providers/types.js";
import { EXPLORATION_OPTIMISM, optimistic, RANK_OPTIMISM } from "./optimism.js";
import type { RouteCounters } from "./route.js";

/**
 * Best optimistic rate first (ties and providers without a rate keep the given order; those without
 * a rate come after those with one). With probability `explorationPercent` % (when `draw` < that
 * share) another one is put first: in the first half of the share the first of the others without a
 * rate, else the other with the highest rate plus EXPLORATION_OPTIMISM standard errors; in the second
 * half each of the others equally often, the draw picking which. The rest keep their order. Without
 * any rate: the given order, no exploration. `draw` is a number in [0, 1).
 */
export function chooseBest(
  providers: readonly PaymentProviderType[],
  lookup: RouteCounters["successRate"],
  cardBrand: string | null,
  currency: string,
  draw: number,
  explorationPercent = 10,
): PaymentProviderType[] {
  const rated = providers.map((provider, index) => {
    const stat = lookup(provider, cardBrand, currency);
    return { provider, index, score: stat ? optimistic(stat, RANK_OPTIMISM) : null, explore: stat ? optimistic(stat, EXPLORATION_OPTIMISM) : Infinity };
  });
  if (rated.every((r) => r.score === null)) return [...providers];
  rated.sort((a, b) => (a.score === null ? (b.score === null ? a.index - b.index : 1) : b.score === null ? -1 : b.score - a.score || a.index - b.index));
  const share = Math.min(Math.max(explorationPercent, 0), 100) / 100;
  if (rated.length < 2 || !(draw >= 0 && draw < share)) return rated.map((r) => r.provider);
  let pick = 1;
  if (draw < share / 2) {
    // The first half of the share: the most promising other (a deterministic choice alone could starve a third provider).
    for (let i = 2; i < rated.length; i++) if (rated[i]!.explore > rated[pick]!.explore) pick = i;
  } else {
    // The second half, spread over the others: each is explored in at least share / 2 / (n - 1) of payments.
    pick = 1 + Math.min(rated.length - 2, Math.floor(((draw - share / 2) / (share / 2)) * (rated.length - 1)));
  }
  const [explored] = rated.splice(pick, 1);
  return [explored!.provider, ...rated.map((r) => r.provider)];
}
