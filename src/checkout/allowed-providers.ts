import { PROVIDER_MANIFEST } from "../providers/manifest.js";
import { PAYMENT_PROVIDERS, type PaymentProviderType } from "../providers/types.js";

/**
 * CONTRACT §4: a token's `provider` claim allows that provider alone; otherwise the brand's enabled
 * payment providers; a brand with none enabled allows all seven (demo).
 */
export function allowedProviders(claimProvider: PaymentProviderType | undefined, brandEnabled: readonly string[]): readonly PaymentProviderType[] {
  if (claimProvider) return [claimProvider];
  const enabled = PAYMENT_PROVIDERS.filter((p) => brandEnabled.includes(p));
  return enabled.length > 0 ? enabled : PAYMENT_PROVIDERS;
}

/**
 * The allowed providers in the order the checkout tries them (issue 34): card-taking ones first, in
 * the brand's order, then the others (hosted_store). A brand that enabled none allows all seven (demo):
 * vault_gateway_b then comes first, as the hosted page always started with it.
 */
export function payOrder(claimProvider: PaymentProviderType | undefined, brandEnabled: readonly string[]): PaymentProviderType[] {
  const allowed = [...allowedProviders(claimProvider, brandEnabled)];
  if (allowed.length === PAYMENT_PROVIDERS.length && !PAYMENT_PROVIDERS.some((p) => brandEnabled.includes(p))) allowed.sort((a, b) => Number(b === DEMO_FIRST) - Number(a === DEMO_FIRST));
  return [...allowed.filter((p) => PROVIDER_MANIFEST[p].cardForm), ...allowed.filter((p) => !PROVIDER_MANIFEST[p].cardForm)];
}

const DEMO_FIRST: PaymentProviderType = "vault_gateway_b";
