import { safeEqual } from "../lib/crypto.js";
import { keyOfSecret } from "../lib/webhook-secret.js";
import { parseCartNotification } from "./cart-gateway/webhook.js";
import { shopifyScheme } from "./hosted-store/webhook.js";
import { stripeScheme } from "./intent-gateway/webhook.js";
import { PAYMENT_PROVIDERS, PROVIDER_MANIFEST, type PaymentProviderType, type WebhookScheme } from "./manifest.js";
import { parseCrmNotification } from "./order-crm-b/webhook.js";
import { nmiScheme } from "./vault-gateway-a/webhook.js";
import { headerOf, hmac, parseNormalised, refused, timestampOf, type ProviderScheme } from "./webhook-scheme-kit.js";

/**
 * Which signature scheme verifies each provider's incoming notifications (docs/webhooks.md "Provider
 * schemes"), each with the brand's `webhookSecret`. A provider's own scheme lives in its folder
 * (`<folder>/webhook.ts`); Standard Webhooks, whose signature three providers share, is here, and
 * each of them reads its own events under it (order-crm-b/webhook.ts, cart-gateway/webhook.ts). The scheme is looked
 * up by provider, not asked of the brand's adapter, because a notification is parsed before its brand
 * is known: trying each candidate brand's secret is what finds the brand.
 */

/**
 * order_crm_a, order_crm_b, cart_gateway: Standard Webhooks (https://www.standardwebhooks.com).
 * `webhook-id`, `webhook-timestamp: <Unix seconds>`, `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<raw body>">` (several space-separated during a roll), keyed with the base64
 * decoding of a `whsec_…` secret, else the secret's UTF-8 bytes (as our own outgoing webhooks,
 * CONTRACT §29). The body is the normalised form; the providers add their dispute events to it.
 */
export const standardScheme: ProviderScheme = {
  name: "Standard Webhooks",
  signatureHeader: "webhook-signature",
  verify(headers, raw, secret) {
    const id = headerOf(headers, "webhook-id");
    if (!id) throw refused("Missing webhook signature");
    const timestamp = timestampOf(headerOf(headers, "webhook-timestamp"));
    const expected = "v1," + hmac(keyOfSecret(secret), `${id}.${timestamp}.`, raw).digest("base64");
    const candidates = (headerOf(headers, "webhook-signature") ?? "").split(" ").filter(Boolean);
    return { valid: candidates.some((candidate) => safeEqual(candidate, expected)), timestamp };
  },
  parse: (text) => parseNormalised(text),
};

const SCHEMES: Record<WebhookScheme, ProviderScheme> = {
  "intent-gateway": stripeScheme,
  "vault-gateway-a": nmiScheme,
  "hosted-store": shopifyScheme,
  "order-crm-b": { ...standardScheme, parse: (text) => parseCrmNotification(text) },
  "cart-gateway": { ...standardScheme, parse: (text) => parseCartNotification(text) },
};

/** Each provider's scheme, as the manifest names it: every provider of the manifest has one. */
export const PROVIDER_SCHEMES = Object.fromEntries(PAYMENT_PROVIDERS.map((p) => [p, SCHEMES[PROVIDER_MANIFEST[p].webhookScheme]])) as Record<PaymentProviderType, ProviderScheme>;
