// How "best of" ranks providers by their recent approval rates (issue 34 item 3; docs/orchestration.md
// "Success-rate routing"). Pure, no imports: route() and chooseBest (the bench's) rank the same way.
//
// A segment's rate comes with its weight: how many recent attempts it stands on (success-rates.ts
// ages attempts with the segment's own attempts and with its card brand × currency's traffic). A rate
// on few recent attempts is uncertain, and the ranking gives it the benefit of the doubt: a provider
// is ranked by its rate plus RANK_OPTIMISM standard errors. One that gets only the exploration share
// (few recent attempts) is put first again when its recent attempts look good, gets many attempts,
// and stays first only if its rate holds. Half of the exploration share goes to the other provider
// with the highest rate plus EXPLORATION_OPTIMISM standard errors (the least known and most promising
// one), the other half to each of the others equally.

/** A rate and the (aged) number of recent attempts it stands on. */
export interface RateStat {
  rate: number;
  attempts: number;
}

/** Standard errors added to a rate to rank providers (measured in bench/routing-simulation.mjs). */
export const RANK_OPTIMISM = 0.5;
/** Standard errors added to a rate to pick which other provider an exploration puts first. */
export const EXPLORATION_OPTIMISM = 2;
/** The variance a rate's standard error uses at least (a rate of 100 % or 0 % on few attempts is still uncertain). */
const VARIANCE_FLOOR = 0.15 * 0.15;

/** The rate plus `z` standard errors; without recent attempts (all aged away): Infinity. */
export function optimistic(stat: RateStat, z: number): number {
  if (!(stat.attempts > 0)) return Infinity;
  return stat.rate + z * Math.sqrt(Math.max(stat.rate * (1 - stat.rate), VARIANCE_FLOOR) / stat.attempts);
}
