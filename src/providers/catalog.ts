import { CRM_PROVIDERS, PAYMENT_PROVIDERS, PROVIDER_MANIFEST } from "./manifest.js";

/**
 * The settings of every provider (CONTRACT "Provider and integration settings"): which keys it
 * takes, which are required for `configured`, which are secrets (sealed at rest, masked in answers)
 * and which are booleans. Every provider also takes `enabled` (boolean). The required keys of the
 * payment providers are the manifest's (src/providers/manifest.ts).
 */
export const SETTINGS_PROVIDERS = [...PAYMENT_PROVIDERS, "email_list_a", "email_list_b", "sms_segments"] as const;
export type SettingsProvider = (typeof SETTINGS_PROVIDERS)[number];

export const CATEGORIES = ["payment", "crm", "analytics"] as const;
export type Category = (typeof CATEGORIES)[number];

export interface ProviderSettingsSpec {
  required: readonly string[];
  optional: readonly string[];
  /** Credentials: sealed with ENCRYPTION_KEY, never answered in full. */
  secrets: readonly string[];
  /** Keys holding booleans (besides `enabled`). */
  booleans: readonly string[];
  /** Keys holding an http(s) URL. */
  urls: readonly string[];
  categories: readonly Category[];
}

const card = (): ProviderSettingsSpec => ({ required: [], optional: ["webhookSecret", "baseUrl"], secrets: ["webhookSecret"], booleans: [], urls: ["baseUrl"], categories: ["payment"] });
const crm = (): ProviderSettingsSpec => ({
  required: [],
  optional: ["webhookSecret", "baseUrl", "failOnCrmError"],
  secrets: ["apiPassword", "webhookSecret"],
  booleans: ["failOnCrmError"],
  urls: ["baseUrl"],
  categories: ["payment", "crm"],
});
const analytics = (): ProviderSettingsSpec => ({ required: ["apiKey"], optional: ["baseUrl"], secrets: ["apiKey"], booleans: [], urls: ["baseUrl"], categories: ["analytics"] });

export const PROVIDER_SETTINGS: Record<SettingsProvider, ProviderSettingsSpec> = {
  intent_gateway: { ...card(), required: PROVIDER_MANIFEST.intent_gateway.requiredSettings, secrets: ["secretKey", "webhookSecret"] },
  vault_gateway_a: { ...card(), required: PROVIDER_MANIFEST.vault_gateway_a.requiredSettings, secrets: ["securityKey", "webhookSecret"] },
  vault_gateway_b: { ...card(), required: PROVIDER_MANIFEST.vault_gateway_b.requiredSettings, secrets: ["securityKey", "webhookSecret"] },
  order_crm_a: { ...crm(), required: PROVIDER_MANIFEST.order_crm_a.requiredSettings },
  order_crm_b: { ...crm(), required: PROVIDER_MANIFEST.order_crm_b.requiredSettings },
  hosted_store: { ...card(), required: PROVIDER_MANIFEST.hosted_store.requiredSettings, secrets: ["accessToken", "webhookSecret"] },
  cart_gateway: { ...crm(), required: PROVIDER_MANIFEST.cart_gateway.requiredSettings, optional: ["webhookSecret", "baseUrl", "failOnCrmError"], secrets: ["apiKey", "webhookSecret"] },
  email_list_a: analytics(),
  email_list_b: analytics(),
  sms_segments: analytics(),
};

/** Every key a provider's settings take, `enabled` included. */
export const keysOf = (provider: SettingsProvider): string[] => ["enabled", ...PROVIDER_SETTINGS[provider].required, ...PROVIDER_SETTINGS[provider].optional];

export const isSettingsProvider = (value: string): value is SettingsProvider => (SETTINGS_PROVIDERS as readonly string[]).includes(value);

/** `configured` when every required key has a non-empty value. */
export function isConfigured(provider: SettingsProvider, values: Record<string, unknown>): boolean {
  return PROVIDER_SETTINGS[provider].required.every((key) => values[key] !== undefined && values[key] !== null && values[key] !== "");
}

/** provider → categories, for the settings page's grouping. */
export const providerCategories = (): Record<SettingsProvider, Category[]> =>
  Object.fromEntries(SETTINGS_PROVIDERS.map((p) => [p, [...PROVIDER_SETTINGS[p].categories]])) as Record<SettingsProvider, Category[]>;

export const isCrmProvider = (value: string): value is (typeof CRM_PROVIDERS)[number] => (CRM_PROVIDERS as readonly string[]).includes(value);
