import type { FunnelCondition, FunnelConditionGroup, FunnelTrigger } from "../../db/schema/index.js";

/** What a trigger can ask of the original order. */
export interface OrderFacts {
  lineItems: { id: string; name: string | null }[];
  totalCents: number;
  currency: string;
  /** The billing country, else the shipping country (ISO 3166-1 alpha-2, upper case). */
  country: string | null;
  /** No earlier checkout order of this brand carries the customer's email. */
  firstOrder: boolean;
}

const sameText = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export function matchesCondition(condition: FunnelCondition, order: OrderFacts): boolean {
  switch (condition.type) {
    case "product":
      // ANY purchased line item named by id or by name (names compared without case).
      return order.lineItems.some(
        (item) => (condition.productIds ?? []).includes(item.id) || (item.name !== null && (condition.productNames ?? []).some((name) => sameText(name, item.name!))),
      );
    case "orderTotal":
      return (condition.min === undefined || order.totalCents >= condition.min) && (condition.max === undefined || order.totalCents <= condition.max);
    case "currency":
      return condition.in.includes(order.currency.toUpperCase());
    case "country":
      return order.country !== null && condition.in.includes(order.country.toUpperCase());
    case "firstOrder":
      return order.firstOrder === condition.value;
  }
}

const isGroup = (node: FunnelCondition | FunnelConditionGroup): node is FunnelConditionGroup => node.type === "group";

function matchesAll(match: "all" | "any", results: boolean[]): boolean {
  return match === "all" ? results.every(Boolean) : results.length === 0 || results.some(Boolean);
}

/** The trigger holds for the order: `all` is AND, `any` is OR; no condition matches every order. */
export function matchesTrigger(trigger: FunnelTrigger, order: OrderFacts): boolean {
  return matchesAll(
    trigger.match,
    trigger.conditions.map((node) => (isGroup(node) ? matchesAll(node.match, node.conditions.map((c) => matchesCondition(c, order))) : matchesCondition(node, order))),
  );
}

/** The funnel that runs: the first by priority (lower first, then oldest, then id) whose trigger matches. */
export function chooseFunnel<F extends { id: string; priority: number; createdAt: Date; trigger: FunnelTrigger }>(funnels: readonly F[], order: OrderFacts): F | null {
  const ordered = [...funnels].sort((a, b) => a.priority - b.priority || a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
  return ordered.find((funnel) => matchesTrigger(funnel.trigger, order)) ?? null;
}
