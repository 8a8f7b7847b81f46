// Issue 19's pure rules of the buyer's path: trigger conditions, AND/OR, priority; variant
// assignment by a stable hash; a session's flow from a funnel version.
import { describe, expect, it } from "vitest";
import type { FunnelCondition, FunnelTrigger } from "../../db/schema/index.js";
import { assignVariant } from "./assign.js";
import { funnelFlow } from "./enter.js";
import { chooseFunnel, matchesTrigger, type OrderFacts } from "./trigger.js";

const order: OrderFacts = { lineItems: [{ id: "sku-1", name: "Starter Kit" }], totalCents: 4999, currency: "USD", country: "GB", firstOrder: true };
const when = (...conditions: FunnelTrigger["conditions"]): FunnelTrigger => ({ match: "all", conditions });

describe("matchesTrigger: each condition", () => {
  it("product: by line item id, or by name without case; another product does not match", () => {
    expect(matchesTrigger(when({ type: "product", productIds: ["sku-1"] }), order)).toBe(true);
    expect(matchesTrigger(when({ type: "product", productNames: ["starter kit"] }), order)).toBe(true);
    expect(matchesTrigger(when({ type: "product", productIds: ["sku-2"], productNames: ["Pro Kit"] }), order)).toBe(false);
  });
  it("orderTotal: min and max inclusive", () => {
    expect(matchesTrigger(when({ type: "orderTotal", min: 4999, max: 4999 }), order)).toBe(true);
    expect(matchesTrigger(when({ type: "orderTotal", min: 5000 }), order)).toBe(false);
    expect(matchesTrigger(when({ type: "orderTotal", max: 4998 }), order)).toBe(false);
  });
  it("currency and country: in the list", () => {
    expect(matchesTrigger(when({ type: "currency", in: ["EUR", "USD"] }), order)).toBe(true);
    expect(matchesTrigger(when({ type: "currency", in: ["EUR"] }), order)).toBe(false);
    expect(matchesTrigger(when({ type: "country", in: ["GB"] }), order)).toBe(true);
    expect(matchesTrigger(when({ type: "country", in: ["US"] }), order)).toBe(false);
    expect(matchesTrigger(when({ type: "country", in: ["GB"] }), { ...order, country: null })).toBe(false);
  });
  it("firstOrder: true or false", () => {
    expect(matchesTrigger(when({ type: "firstOrder", value: true }), order)).toBe(true);
    expect(matchesTrigger(when({ type: "firstOrder", value: false }), order)).toBe(false);
    expect(matchesTrigger(when({ type: "firstOrder", value: false }), { ...order, firstOrder: false })).toBe(true);
  });
  it("no condition matches every order", () => {
    expect(matchesTrigger({ match: "all", conditions: [] }, order)).toBe(true);
    expect(matchesTrigger({ match: "any", conditions: [] }, order)).toBe(true);
  });
});

describe("matchesTrigger: AND / OR", () => {
  const yes: FunnelCondition = { type: "currency", in: ["USD"] };
  const no: FunnelCondition = { type: "country", in: ["US"] };
  it("all is AND, any is OR", () => {
    expect(matchesTrigger({ match: "all", conditions: [yes, no] }, order)).toBe(false);
    expect(matchesTrigger({ match: "any", conditions: [yes, no] }, order)).toBe(true);
    expect(matchesTrigger({ match: "any", conditions: [no, no] }, order)).toBe(false);
  });
  it("groups: USD AND (US OR GB), and USD AND (US AND GB)", () => {
    expect(matchesTrigger({ match: "all", conditions: [yes, { type: "group", match: "any", conditions: [no, { type: "country", in: ["GB"] }] }] }, order)).toBe(true);
    expect(matchesTrigger({ match: "all", conditions: [yes, { type: "group", match: "all", conditions: [no, { type: "country", in: ["GB"] }] }] }, order)).toBe(false);
  });
});

describe("chooseFunnel: priority", () => {
  const at = (ms: number) => new Date(ms);
  const funnel = (id: string, priority: number, trigger: FunnelTrigger, createdAt = at(0)) => ({ id, priority, trigger, createdAt });
  it("the lowest priority whose trigger matches; ties by age; none matching is null", () => {
    const gbOnly = when({ type: "country", in: ["GB"] });
    const usOnly = when({ type: "country", in: ["US"] });
    expect(chooseFunnel([funnel("b", 5, gbOnly), funnel("a", 1, usOnly), funnel("c", 10, gbOnly)], order)?.id).toBe("b");
    expect(chooseFunnel([funnel("new", 5, gbOnly, at(2)), funnel("old", 5, gbOnly, at(1))], order)?.id).toBe("old");
    expect(chooseFunnel([funnel("a", 1, usOnly)], order)).toBeNull();
  });
});

describe("assignVariant", () => {
  const variants = [
    { id: "a", weight: 50 },
    { id: "b", weight: 30 },
    { id: "c", weight: 20 },
  ];
  it("spreads 10 000 order ids by weight within 2 points, the same variant for the same order id", () => {
    const counts: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let i = 0; i < 10_000; i += 1) counts[assignVariant(variants, { originalOrderId: `order-${i}`, funnelId: "fnl_1", stepIndex: 0 }).id]! += 1;
    expect(Math.abs(counts.a! / 10_000 - 0.5)).toBeLessThan(0.02);
    expect(Math.abs(counts.b! / 10_000 - 0.3)).toBeLessThan(0.02);
    expect(Math.abs(counts.c! / 10_000 - 0.2)).toBeLessThan(0.02);
    const key = { originalOrderId: "order-42", funnelId: "fnl_1", stepIndex: 0 };
    expect(new Set(Array.from({ length: 20 }, () => assignVariant(variants, key).id)).size).toBe(1);
  });

  it("funnelFlow prices each step in the order's currency, skips a step without a price in it, puts the downsell after its offer", () => {
    const steps = [
      { variants: [{ id: "v1", weight: 1, offer: { name: "One", prices: { EUR: 900 }, price: 1000, originalPrice: 2000 }, downsell: { name: "One lite", price: 500 } }] },
      { variants: [{ id: "v2", weight: 1, offer: { name: "Two", prices: { EUR: 1900 } } }] },
    ];
    const usd = funnelFlow({ id: "fnl_1", version: 3, steps }, "order-1", "USD");
    expect(usd).toEqual([
      { id: "v1", name: "One", priceCents: 1000, originalPriceCents: 2000, funnel: { funnelId: "fnl_1", funnelVersion: 3, stepIndex: 0, variantId: "v1", downsell: false } },
      { id: "v1.downsell", name: "One lite", priceCents: 500, downsellOf: "v1", funnel: { funnelId: "fnl_1", funnelVersion: 3, stepIndex: 0, variantId: "v1", downsell: true } },
    ]);
    expect(funnelFlow({ id: "fnl_1", version: 3, steps }, "order-1", "EUR").map((o) => [o.id, o.priceCents])).toEqual([["v1", 900], ["v1.downsell", 500], ["v2", 1900]]);
  });
});
