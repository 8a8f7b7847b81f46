import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { Db } from "../db/client.js";
import { AppError } from "../lib/errors.js";
import type { Clock } from "../lib/clock.js";
import type { CartGatewayAdapter } from "./cart-gateway/adapter.js";
import type { VaultGatewayAdapter } from "./demo/vault-gateway.js";
import type { HostedStoreAdapter } from "./hosted-store/adapter.js";
import type { IntentGatewayAdapter } from "./intent-gateway/adapter.js";
import type { OrderCrmAAdapter } from "./order-crm-a/adapter.js";
import type { OrderCrmBAdapter } from "./order-crm-b/adapter.js";
import type { CrmProvider, CrmProviderType, PaymentProviderType, ProviderCall } from "./types.js";

/**
 * Each provider's adapter type: the PaymentProvider contract plus the operations its own endpoints
 * need (SPEC "Payment provider endpoints"). `payment("vault_gateway_a", …)` is typed accordingly;
 * with a provider only known at run time it is the union, which is still a PaymentProvider.
 */
export interface PaymentAdapters {
  intent_gateway: IntentGatewayAdapter;
  vault_gateway_a: VaultGatewayAdapter;
  order_crm_a: OrderCrmAAdapter;
  order_crm_b: OrderCrmBAdapter;
  hosted_store: HostedStoreAdapter;
  cart_gateway: CartGatewayAdapter;
  vault_gateway_b: VaultGatewayAdapter;
}
export type CrmAdapters = Record<CrmProviderType, CrmProvider>;

export interface ResolvedProvider<P> {
  adapter: P;
  call: ProviderCall;
}

/**
 * Picks the adapter for a provider and brand: the real one when the brand has credentials,
 * otherwise the demo one (PAYMENT_MODE=test) or a 503 (PAYMENT_MODE=live). Demo mode is the
 * registry's job, so no verb or route ever asks "are we in demo mode?".
 */
export interface ProviderRegistry {
  payment<P extends PaymentProviderType>(provider: P, brandId: string, db?: Db): Promise<ResolvedProvider<PaymentAdapters[P]>>;
  crm(provider: CrmProviderType, brandId: string, db?: Db): Promise<ResolvedProvider<CrmProvider>>;
}

export interface RegistryDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  demoPayment: PaymentAdapters;
  demoCrm: CrmAdapters;
}

export function createProviderRegistry(deps: RegistryDeps): ProviderRegistry {
  const callFor = (db?: Db): ProviderCall => ({
    credentials: null,
    clock: deps.clock,
    log: deps.log,
    db: db ?? deps.db,
    publicBaseUrl: deps.config.publicBaseUrl,
  });
  const demoOrRefuse = <P>(adapter: P, db?: Db): ResolvedProvider<P> => {
    // Real adapters arrive with provider settings (credentials per brand); until a brand has them, demo.
    if (deps.config.paymentMode === "live") throw new AppError("PROVIDER_NOT_CONFIGURED", "Payment provider not configured");
    return { adapter, call: callFor(db) };
  };
  return {
    payment: async <P extends PaymentProviderType>(provider: P, _brandId: string, db?: Db) => demoOrRefuse(deps.demoPayment[provider], db),
    crm: async (provider, _brandId, db) => demoOrRefuse(deps.demoCrm[provider], db),
  };
}
