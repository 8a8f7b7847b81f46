import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { Db } from "../db/client.js";
import { AppError } from "../lib/errors.js";
import type { Clock } from "../lib/clock.js";
import type { CrmProvider, CrmProviderType, PaymentProvider, PaymentProviderType, ProviderCall } from "./types.js";

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
  payment(provider: PaymentProviderType, brandId: string, db?: Db): Promise<ResolvedProvider<PaymentProvider>>;
  crm(provider: CrmProviderType, brandId: string, db?: Db): Promise<ResolvedProvider<CrmProvider>>;
}

export interface RegistryDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  demoPayment: Record<PaymentProviderType, PaymentProvider>;
  demoCrm: Record<CrmProviderType, CrmProvider>;
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
    payment: async (provider, _brandId, db) => demoOrRefuse(deps.demoPayment[provider], db),
    crm: async (provider, _brandId, db) => demoOrRefuse(deps.demoCrm[provider], db),
  };
}
