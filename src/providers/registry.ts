import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { Db } from "../db/client.js";
import { AppError } from "../lib/errors.js";
import type { Clock } from "../lib/clock.js";
import type { CartGatewayAdapter } from "./cart-gateway/provider.js";
import type { DemoLedger } from "./demo/ledger.js";
import type { HostedStoreAdapter } from "./hosted-store/provider.js";
import type { IntentGatewayAdapter } from "./intent-gateway/provider.js";
import type { OrderCrmAAdapter } from "./order-crm-a/provider.js";
import type { OrderCrmBAdapter } from "./order-crm-b/provider.js";
import type { CrmProvider, CrmProviderType, DemoOutage, PaymentProviderType, ProviderCall } from "./types.js";
import type { VaultGatewayAdapter } from "./vault-gateway-a/provider.js";
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

/** Demo adapters are built over a demo ledger bound to the caller's database handle. */
export type DemoPaymentFactories = { [P in PaymentProviderType]: (ledger: DemoLedger) => PaymentAdapters[P] };
export type DemoCrmFactories = Record<CrmProviderType, (ledger: DemoLedger) => CrmProvider>;

export interface ResolvedProvider<P> {
  adapter: P;
  call: ProviderCall;
  /**
   * The same adapter for calls inside the caller's transaction `tx`: a demo adapter then keeps its
   * records (and row locks) in that transaction, as the decline it may lead to; a real one is unchanged.
   */
  within(tx: Db): P;
}

/**
 * Picks the adapter for a provider, brand and mode (issue 33, CONTRACT §39). The mode is the object's
 * (`livemode`, fixed when its credential made it), never re-decided from settings: test → the real
 * adapter with the brand's TEST credentials (a provider's sandbox) when saved and enabled, else the
 * demo adapter, also on a brand with live credentials (409 TEST_MODE_DISABLED with PAYMENT_MODE=live,
 * which refuses test mode altogether); live → the real adapter with the brand's LIVE credentials, else
 * 409 PROVIDER_NOT_CONFIGURED. The two sets never stand in for each other: a test object never reaches
 * live credentials, a live one never sandbox credentials. Demo mode is the registry's job, so no verb or route ever asks "are we in
 * demo mode?".
 */
export interface ProviderRegistry {
  payment<P extends PaymentProviderType>(provider: P, brandId: string, livemode: boolean, db?: Db): Promise<ResolvedProvider<PaymentAdapters[P]>>;
  /**
   * Whether the provider has usable live credentials on the brand (a real adapter would charge):
   * refusals at creation and the legacy mode rule of tokens without a mode (docs/decisions.md "Test and live").
   */
  hasLiveCredentials(provider: PaymentProviderType, brandId: string, db?: Db): Promise<boolean>;
  /**
   * The demo adapter whatever the brand's settings and PAYMENT_MODE: for money that is in the demo
   * ledger (an order paid in demo mode before the brand configured the provider), never for new charges.
   */
  demoPayment<P extends PaymentProviderType>(provider: P, db?: Db): ResolvedProvider<PaymentAdapters[P]>;
  /**
   * The adapter that holds money already taken (refunds, charges of a saved method), by the payment's
   * stored mode and `paidInDemo`, never by the settings now: in the demo ledger → the demo adapter
   * (whatever PAYMENT_MODE: it charges nothing new); a test payment made at a sandbox → the real adapter
   * with the TEST credentials (409 PROVIDER_NOT_CONFIGURED once they are gone); live → the live ones.
   * `paidInDemo` null (rows from before it was recorded): a test payment was in the demo ledger.
   */
  paymentOf<P extends PaymentProviderType>(provider: P, brandId: string, paid: { livemode: boolean; paidInDemo: boolean | null }, db?: Db): Promise<ResolvedProvider<PaymentAdapters[P]>>;
  /**
   * A CRM records orders and moves no money: test → the demo CRM (whatever PAYMENT_MODE); live → the
   * real one when configured, else as before modes: the demo one (PAYMENT_MODE=test) or 409.
   */
  crm(provider: CrmProviderType, brandId: string, livemode: boolean, db?: Db): Promise<ResolvedProvider<CrmProvider>>;
  /** Forgets the cached settings of a brand (after a settings change in this process). */
  invalidate(brandId: string): void;
}

export interface RegistryDeps {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  demoPayment: DemoPaymentFactories;
  demoCrm: DemoCrmFactories;
  /** The demo ledger over our tables, bound to a database handle (src/payments/demo-ledger.ts). */
  demoLedger: (db: Db) => DemoLedger;
  /** The real adapters built so far; a configured provider without one stays demo (test mode). */
  realPayment?: Partial<PaymentAdapters>;
  realCrm?: Partial<CrmAdapters>;
  /** How long a brand's settings are cached (ms); other processes see a change after this. */
  cacheMs?: number;
}

export const SETTINGS_CACHE_MS = 5_000;

export const providerNotConfigured = () => new AppError("PROVIDER_NOT_CONFIGURED", "Payment provider not configured");
/** CONTRACT §39: the operator's PAYMENT_MODE=live refuses test mode altogether. */
export const testModeDisabled = () => new AppError("TEST_MODE_DISABLED", "Test mode is disabled on this service (PAYMENT_MODE=live)");

/**
 * The brand's settings are read once per brand and cached briefly (sealed, as stored), so the
 * checkout hot path adds no query per request; secrets are opened only when a real adapter is
 * handed its call.
 */
export function createProviderRegistry(deps: RegistryDeps): ProviderRegistry {
  const cacheMs = deps.cacheMs ?? SETTINGS_CACHE_MS;
  const keyring = deps.config.encryptionKeyring;
  // Keyed by brand and mode (`<brandId>:live` / `<brandId>:test`): the two sets of credentials are read apart.
  const cache = new Map<string, { at: number; settings: Promise<StoredSettings[]>; settled: boolean }>();

  // Read with the caller's handle: inside a transaction a query on another connection could wait on
  // it (PGlite has one connection, so it would wait forever). For the same reason a caller with its
  // own handle (a transaction, holding a pool connection) never waits on a read still in flight: a
  // read started on the pool may be queued for the very connections such callers hold, and with all
  // of them held so, every one failed at the pool's 5-s timeout (issue 23, docs/performance.md).
  const settingsOf = (brandId: string, livemode: boolean, db: Db | undefined): Promise<StoredSettings[]> => {
    const now = deps.clock.now();
    const key = `${brandId}:${livemode ? "live" : "test"}`;
    const hit = cache.get(key);
    if (hit && now - hit.at < cacheMs) {
      if (hit.settled || !db) return hit.settings;
      return loadBrandSettings(db, brandId, livemode);
    }
    const entry = { at: now, settings: loadBrandSettings(db ?? deps.db, brandId, livemode), settled: false };
    cache.set(key, entry);
    entry.settings.then(() => (entry.settled = true), () => cache.get(key) === entry && cache.delete(key));
    return entry.settings;
  };

  const callFor = (credentials: Record<string, unknown> | null): ProviderCall => ({
    credentials,
    clock: deps.clock,
    log: deps.log,
    publicBaseUrl: deps.config.publicBaseUrl,
    allowPrivateUrls: deps.config.allowPrivateWebhookUrls,
  });

  /** `demoOutage`: the brand's "Simulate outage" switch of the provider (test mode), handed to the demo adapter in its call. */
  const demoOf = <P>(demo: (ledger: DemoLedger) => P, db?: Db, demoOutage?: DemoOutage | null): ResolvedProvider<P> => ({
    adapter: demo(deps.demoLedger(db ?? deps.db)),
    call: demoOutage ? { ...callFor(null), demoOutage } : callFor(null),
    within: (tx) => demo(deps.demoLedger(tx)),
  });
  const demoPaymentOf = <P extends PaymentProviderType>(provider: P) => deps.demoPayment[provider] as (ledger: DemoLedger) => PaymentAdapters[P];

  /** The real adapter with the brand's credentials of one mode (live, or the sandbox's as test), or null. */
  async function realOf<P>(provider: string, brandId: string, real: P | undefined, livemode: boolean, db?: Db): Promise<ResolvedProvider<P> | null> {
    return realIn((await settingsOf(brandId, livemode, db)).find((s) => s.provider === provider), provider, brandId, real, livemode);
  }

  function realIn<P>(stored: StoredSettings | undefined, provider: string, brandId: string, real: P | undefined, livemode: boolean): ResolvedProvider<P> | null {
    if (real && stored && stored.enabled && isSettingsProvider(provider)) {
      const { values, secretsReadable } = readableValuesOf(stored, keyring);
      if (!secretsReadable) deps.log.error({ provider, brandId, livemode }, "provider secrets cannot be decrypted (ENCRYPTION_KEY changed?); provider treated as not configured");
      if (isConfigured(provider, values)) return { adapter: real, call: callFor(values), within: () => real };
    }
    return null;
  }

  async function resolvePayment<P>(provider: string, brandId: string, livemode: boolean, demo: (ledger: DemoLedger) => P, real: P | undefined, db?: Db): Promise<ResolvedProvider<P>> {
    if (!livemode) {
      // PAYMENT_MODE=live refuses test mode altogether: a demo adapter never charges there.
      if (deps.config.paymentMode === "live") throw testModeDisabled();
      // One read of the test settings (cached): the sandbox credentials, else the demo adapter with the outage switch.
      const stored = (await settingsOf(brandId, false, db)).find((s) => s.provider === provider);
      return realIn(stored, provider, brandId, real, false) ?? demoOf(demo, db, stored?.demoOutage);
    }
    const resolved = await realOf(provider, brandId, real, true, db);
    if (!resolved) throw providerNotConfigured();
    return resolved;
  }

  async function resolvePaid<P>(provider: string, brandId: string, paid: { livemode: boolean; paidInDemo: boolean | null }, demo: (ledger: DemoLedger) => P, real: P | undefined, db?: Db): Promise<ResolvedProvider<P>> {
    if (paid.paidInDemo === true || (!paid.livemode && paid.paidInDemo === null)) return demoOf(demo, db);
    const resolved = await realOf(provider, brandId, real, paid.livemode, db);
    if (!resolved) throw providerNotConfigured();
    return resolved;
  }

  async function resolveCrm(provider: CrmProviderType, brandId: string, livemode: boolean, db?: Db): Promise<ResolvedProvider<CrmProvider>> {
    const demo = deps.demoCrm[provider];
    if (!livemode) return demoOf(demo, db);
    const resolved = await realOf(provider, brandId, deps.realCrm?.[provider], true, db);
    if (resolved) return resolved;
    if (deps.config.paymentMode === "live") throw providerNotConfigured();
    return demoOf(demo, db);
  }

  return {
    payment: <P extends PaymentProviderType>(provider: P, brandId: string, livemode: boolean, db?: Db) =>
      resolvePayment<PaymentAdapters[P]>(provider, brandId, livemode, demoPaymentOf(provider), deps.realPayment?.[provider], db),
    hasLiveCredentials: async (provider, brandId, db) => (await realOf(provider, brandId, deps.realPayment?.[provider], true, db)) !== null,
    demoPayment: (provider, db) => demoOf(demoPaymentOf(provider), db),
    paymentOf: <P extends PaymentProviderType>(provider: P, brandId: string, paid: { livemode: boolean; paidInDemo: boolean | null }, db?: Db) =>
      resolvePaid<PaymentAdapters[P]>(provider, brandId, paid, demoPaymentOf(provider), deps.realPayment?.[provider], db),
    crm: resolveCrm,
    invalidate: (brandId) => {
      cache.delete(`${brandId}:live`);
      cache.delete(`${brandId}:test`);
    },
  };
}
