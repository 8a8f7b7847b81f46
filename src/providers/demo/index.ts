import type { CrmProvider, CrmProviderType, PaymentProvider, PaymentProviderType } from "../types.js";

// Placeholder until the demo adapters land.
const missing = (id: string) =>
  new Proxy({ id, demo: true }, { get: (t, p) => (p in t ? t[p as keyof typeof t] : async () => { throw new Error(`${id}: not implemented`); }) });

export const demoPaymentProviders = Object.fromEntries(
  ["intent_gateway", "vault_gateway_a", "order_crm_a", "order_crm_b", "hosted_store", "cart_gateway", "vault_gateway_b"].map((id) => [id, missing(id)]),
) as unknown as Record<PaymentProviderType, PaymentProvider>;
export const demoCrmProviders = Object.fromEntries(["order_crm_a", "order_crm_b", "cart_gateway"].map((id) => [id, missing(id)])) as unknown as Record<CrmProviderType, CrmProvider>;
