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
