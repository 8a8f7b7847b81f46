// Issue 19's split-test winner rule (the funnel stats page); the rules of the buyer's path are
// tested in src/upsell/funnel/funnel.unit.test.ts.
import { describe, expect, it } from "vitest";
import { splitTestVerdicts } from "./winner.js";

describe("splitTestVerdicts: the winner rule", () => {
  const counts = (impressions: number, acceptsA: number, acceptsB: number) => [
    { variantId: "a", impressions, accepts: acceptsA, revenueCents: acceptsA * 1000 },
    { variantId: "b", impressions, accepts: acceptsB, revenueCents: acceptsB * 1000 },
  ];
  it("declares a clearly better variant the winner with enough impressions", () => {
    const [a, b] = splitTestVerdicts(counts(1000, 300, 200), 300);
    expect(a!.probabilityBestTakeRate).toBeGreaterThan(0.99);
    expect(a!.winner).toBe(true);
    expect(b!.winner).toBe(false);
    expect(a!.probabilityBestTakeRate + b!.probabilityBestTakeRate).toBeCloseTo(1, 10);
    expect(a!.probabilityBestRevenue).toBeGreaterThan(0.99);
  });
  it("no winner below the minimum sample, however clear", () => {
    const verdicts = splitTestVerdicts(counts(299, 150, 30), 300);
    expect(verdicts[0]!.probabilityBestTakeRate).toBeGreaterThan(0.99);
    expect(verdicts.some((v) => v.winner)).toBe(false);
  });
  it("no winner when the difference is within chance", () => {
    const verdicts = splitTestVerdicts(counts(1000, 205, 200), 300);
    expect(verdicts[0]!.probabilityBestTakeRate).toBeGreaterThan(0.4);
    expect(verdicts[0]!.probabilityBestTakeRate).toBeLessThan(0.95);
    expect(verdicts.some((v) => v.winner)).toBe(false);
  });
  it("revenue per impression can favour the lower take rate at a higher price", () => {
    const [cheap, dear] = splitTestVerdicts(
      [
        { variantId: "cheap", impressions: 2000, accepts: 400, revenueCents: 400 * 1000 },
        { variantId: "dear", impressions: 2000, accepts: 300, revenueCents: 300 * 3000 },
      ],
      300,
    );
    expect(cheap!.winner).toBe(true);
    expect(dear!.probabilityBestRevenue).toBeGreaterThan(0.99);
  });
  it("the same counts always give the same probabilities", () => {
    expect(splitTestVerdicts(counts(500, 60, 50), 300)).toEqual(splitTestVerdicts(counts(500, 60, 50), 300));
  });
});
