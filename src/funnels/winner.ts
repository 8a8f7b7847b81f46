// Split-test arithmetic (docs/funnels.md "Split tests"): Beta(1 + accepts, 1 + impressions - accepts)
// posteriors of each variant's take rate, compared by Monte Carlo with a fixed seed, so the same
// counts always give the same probabilities.

export interface VariantCounts {
  variantId: string;
  impressions: number;
  accepts: number;
  /** Gross revenue of the accepts, to weigh the take rate into revenue per impression. */
  revenueCents: number;
}

export interface VariantVerdict {
  variantId: string;
  probabilityBestTakeRate: number;
  probabilityBestRevenue: number;
  winner: boolean;
}

export const WINNER_PROBABILITY = 0.95;
const DRAWS = 20_000;

/** mulberry32: a small seeded generator (Math.random cannot be seeded). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normal(random: () => number): number {
  const u = Math.max(random(), Number.MIN_VALUE);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** Marsaglia-Tsang gamma sampler (shape ≥ 1, which 1 + count always is). */
function gamma(shape: number, random: () => number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normal(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = random();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

function beta(a: number, b: number, random: () => number): number {
  const x = gamma(a, random);
  return x / (x + gamma(b, random));
}

/**
 * Per variant, the probability that its take rate (and its revenue per impression: a take-rate draw
 * times its average accepted value) is the highest of the step's; `winner` once the take-rate
 * probability passes 95 % and every variant has at least `minSamplePerVariant` impressions.
 */
export function splitTestVerdicts(variants: readonly VariantCounts[], minSamplePerVariant: number): VariantVerdict[] {
  // The same counts always give the same verdict, and the draws cost 15-20 ms a step
  // (docs/benchmarks-funnels.md): a stats page read again between two answers costs nothing.
  const key = JSON.stringify([minSamplePerVariant, variants.map((v) => [v.variantId, v.impressions, v.accepts, v.revenueCents])]);
  const known = verdictCache.get(key);
  if (known) return known.map((v) => ({ ...v }));
  const verdicts = computeVerdicts(variants, minSamplePerVariant);
  if (verdictCache.size >= VERDICT_CACHE_SIZE) verdictCache.delete(verdictCache.keys().next().value!);
  verdictCache.set(key, verdicts);
  return verdicts.map((v) => ({ ...v }));
}

const VERDICT_CACHE_SIZE = 1_000;
const verdictCache = new Map<string, VariantVerdict[]>();

function computeVerdicts(variants: readonly VariantCounts[], minSamplePerVariant: number): VariantVerdict[] {
  if (variants.length < 2) return variants.map((v) => ({ variantId: v.variantId, probabilityBestTakeRate: 1, probabilityBestRevenue: 1, winner: false }));
  const random = seeded(0x5eed);
  const bestRate = new Array<number>(variants.length).fill(0);
  const bestRevenue = new Array<number>(variants.length).fill(0);
  const value = variants.map((v) => (v.accepts > 0 ? v.revenueCents / v.accepts : 0));
  for (let draw = 0; draw < DRAWS; draw += 1) {
    let rateIndex = 0;
    let rateMax = -1;
    let revenueIndex = 0;
    let revenueMax = -1;
    variants.forEach((v, i) => {
      const rate = beta(1 + v.accepts, 1 + Math.max(0, v.impressions - v.accepts), random);
      if (rate > rateMax) [rateMax, rateIndex] = [rate, i];
      if (rate * value[i]! > revenueMax) [revenueMax, revenueIndex] = [rate * value[i]!, i];
    });
    bestRate[rateIndex]! += 1;
    bestRevenue[revenueIndex]! += 1;
  }
  const sampled = variants.every((v) => v.impressions >= minSamplePerVariant);
  return variants.map((v, i) => {
    const probabilityBestTakeRate = bestRate[i]! / DRAWS;
    return { variantId: v.variantId, probabilityBestTakeRate, probabilityBestRevenue: bestRevenue[i]! / DRAWS, winner: sampled && probabilityBestTakeRate > WINNER_PROBABILITY };
  });
}
