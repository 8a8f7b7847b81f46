/** SPEC.md "Targeting rules" (`showIf`). */
export interface TargetingRules {
  minCartValue?: number;
  productIds?: string[];
  excludeProductIds?: string[];
}

export interface PurchasedCart {
  /** Cents: `cartTotal` of the request, else the original order's amount. */
  cartTotal: number;
  purchasedProductIds: readonly string[];
}

/**
 * Every present rule must hold (SPEC rule 1). Where SPEC leaves it open (rule 3) we decided:
 * `productIds` is met when ANY listed product was purchased, and `excludeProductIds` hides the
 * offer when ANY listed product was purchased. An empty list is no rule.
 */
export function isOfferEligible(rules: TargetingRules | undefined, cart: PurchasedCart): boolean {
  if (!rules) return true;
  if (rules.minCartValue !== undefined && cart.cartTotal < rules.minCartValue) return false;
  const purchased = new Set(cart.purchasedProductIds);
  if (rules.productIds?.length && !rules.productIds.some((id) => purchased.has(id))) return false;
  if (rules.excludeProductIds?.some((id) => purchased.has(id))) return false;
  return true;
}
