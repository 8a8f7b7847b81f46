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
import { isConfigured, isSettingsProvider } from "./catalog.js";
import { loadBrandSettings, readableValuesOf, type StoredSettings } from "./settings-store.js";

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
  /** Forgets the cached settings of a brand (after a settings change in this process). */
  invalidate(brandId: string): void;
}

export interface RegistryDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  demoPayment: PaymentAdapters;
  demoCrm: CrmAdapters;
  /** The real adapters built so far; a configured provider without one stays demo (test mode). */
  realPayment?: Partial<PaymentAdapters>;
  realCrm?: Partial<CrmAdapters>;
  /** How long a brand's settings are cached (ms); other processes see a change after this. */
  cacheMs?: number;
}

export const SETTINGS_CACHE_MS = 5_000;

/**
 * The brand's settings are read once per brand and cached briefly (sealed, as stored), so the
 * checkout hot path adds no query per request; secrets are opened only when a real adapter is
 * handed its call.
 */
export function createProviderRegistry(deps: RegistryDeps): ProviderRegistry {
  const cacheMs = deps.cacheMs ?? SETTINGS_CACHE_MS;
  const keyring = deps.config.encryptionKeyring;
  const cache = new Map<string, { at: number; settings: Promise<StoredSettings[]> }>();

  // Read with the caller's handle: inside a transaction a query on another connection could wait on
  // it (PGlite has one connection, so it would wait forever).
  const settingsOf = (brandId: string, db: Db | undefined): Promise<StoredSettings[]> => {
    const now = deps.clock.now();
    const hit = cache.get(brandId);
    if (hit && now - hit.at < cacheMs) return hit.settings;
    const settings = loadBrandSettings(db ?? deps.db, brandId);
    cache.set(brandId, { at: now, settings });
    settings.catch(() => cache.delete(brandId));
    return settings;
  };

  const callFor = (db: Db | undefined, credentials: Record<string, unknown> | null): ProviderCall => ({
    credentials,
    clock: deps.clock,
    log: deps.log,
    db: db ?? deps.db,
    publicBaseUrl: deps.config.publicBaseUrl,
    allowPrivateUrls: deps.config.allowPrivateWebhookUrls,
  });

  async function resolve<P>(provider: string, brandId: string, demo: P, real: P | undefined, db?: Db): Promise<ResolvedProvider<P>> {
    const stored = (await settingsOf(brandId, db)).find((s) => s.provider === provider);
    if (real && stored && stored.enabled && isSettingsProvider(provider)) {
      const { values, secretsReadable } = readableValuesOf(stored, keyring);
      if (!secretsReadable) deps.log.error({ provider, brandId }, "provider secrets cannot be decrypted (ENCRYPTION_KEY changed?); provider treated as not configured");
      if (isConfigured(provider, values)) return { adapter: real, call: callFor(db, values) };
    }
    if (deps.config.paymentMode === "live") throw new AppError("PROVIDER_NOT_CONFIGURED", "Payment provider not configured");
    return { adapter: demo, call: callFor(db, null) };
  }

  return {
    payment: <P extends PaymentProviderType>(provider: P, brandId: string, db?: Db) =>
      resolve<PaymentAdapters[P]>(provider, brandId, deps.demoPayment[provider], deps.realPayment?.[provider], db),
    crm: (provider, brandId, db) => resolve<CrmProvider>(provider, brandId, deps.demoCrm[provider], deps.realCrm?.[provider], db),
    invalidate: (brandId) => {
      cache.delete(brandId);
    },
  };
}
