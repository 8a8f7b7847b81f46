/**
 * The one list of providers (docs/providers.md): every other list (the registry's adapters, the
 * provider routes, the OpenAPI tags, the incoming webhooks, the settings catalogue, the checkout
 * page) is read from here. Dependency-free on purpose, so the web pages can import it too.
 */

export type ProviderKind = "payment" | "crm";
/**
 * The provider's own signature scheme for incoming notifications (docs/webhooks.md "Provider schemes"):
 * the folder whose webhook.ts holds it (order-crm-b and cart-gateway: their events, under the
 * Standard Webhooks signature they share, in webhook-schemes.ts).
 */
export type WebhookScheme = "intent-gateway" | "vault-gateway-a" | "hosted-store" | "order-crm-b" | "cart-gateway";

export interface ProviderEntry {
  /** The folder under src/providers/ holding provider.ts, demo.ts, adapter.ts, fake-server.ts and its own webhook.ts (its endpoints: src/payments/endpoints/<folder>*.ts). */
  folder: string;
  /** Every provider takes payments; some also record orders as a CRM (complete rule 1). */
  kinds: readonly ProviderKind[];
  /** Its rows of SPEC "Payment provider endpoints": `/api/providers/<id>/<endpoint>`. */
  endpoints: readonly string[];
  /** The settings keys a configured provider needs (CONTRACT "Provider and integration settings"). */
  requiredSettings: readonly string[];
  webhookScheme: WebhookScheme;
  /** The hosted checkout page takes card fields for it (else the provider's own page or SDK does). */
  cardForm: boolean;
}

const CRM_SETTINGS = ["apiUsername", "apiPassword", "campaignId"] as const;

export const PROVIDER_MANIFEST = {
  intent_gateway: {
    folder: "intent-gateway",
    kinds: ["payment"],
    endpoints: ["create-intent", "confirm"],
    requiredSettings: ["publishableKey", "secretKey"],
    webhookScheme: "intent-gateway",
    cardForm: true,
  },
  vault_gateway_a: {
    folder: "vault-gateway-a",
    kinds: ["payment"],
    endpoints: ["process-payment", "process-upsell"],
    requiredSettings: ["securityKey"],
    webhookScheme: "vault-gateway-a",
    cardForm: true,
  },
  order_crm_a: {
    folder: "order-crm-a",
    kinds: ["payment", "crm"],
    endpoints: ["create-order", "process-payment", "confirm-order"],
    requiredSettings: CRM_SETTINGS,
    // The same chargeback events as order_crm_b: order-crm-b/webhook.ts.
    webhookScheme: "order-crm-b",
    cardForm: true,
  },
  order_crm_b: {
    folder: "order-crm-b",
    kinds: ["payment", "crm"],
    endpoints: ["process-payment"],
    requiredSettings: CRM_SETTINGS,
    webhookScheme: "order-crm-b",
    cardForm: true,
  },
  hosted_store: {
    folder: "hosted-store",
    kinds: ["payment"],
    endpoints: ["create-checkout", "complete-checkout", "confirm-order"],
    requiredSettings: ["shopDomain", "accessToken"],
    webhookScheme: "hosted-store",
    cardForm: false,
  },
  cart_gateway: {
    folder: "cart-gateway",
    kinds: ["payment", "crm"],
    endpoints: ["create-cart", "process-payment"],
    requiredSettings: ["apiKey"],
    webhookScheme: "cart-gateway",
    cardForm: true,
  },
  vault_gateway_b: {
    folder: "vault-gateway-b",
    kinds: ["payment"],
    endpoints: ["process-payment"],
    requiredSettings: ["securityKey"],
    // The same wire as vault_gateway_a, so the same scheme: vault-gateway-a/webhook.ts.
    webhookScheme: "vault-gateway-a",
    cardForm: true,
  },
} as const satisfies Record<string, ProviderEntry>;

export type PaymentProviderType = keyof typeof PROVIDER_MANIFEST;
export type CrmProviderType = { [P in PaymentProviderType]: "crm" extends (typeof PROVIDER_MANIFEST)[P]["kinds"][number] ? P : never }[PaymentProviderType];

/** Every provider, in SPEC's order. */
export const PAYMENT_PROVIDERS = Object.keys(PROVIDER_MANIFEST) as PaymentProviderType[];
/** The providers that record orders as a CRM. */
export const CRM_PROVIDERS = PAYMENT_PROVIDERS.filter((p) => (PROVIDER_MANIFEST[p].kinds as readonly ProviderKind[]).includes("crm")) as CrmProviderType[];
/** The providers whose notifications `POST /api/webhooks/<provider>` takes: all of them. */
export const INCOMING_PROVIDERS = PAYMENT_PROVIDERS;

/** OpenAPI tag of a provider's endpoints. */
export const providerTag = (provider: PaymentProviderType) => `Payment provider: ${provider}`;
