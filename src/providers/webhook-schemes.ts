import { createHmac } from "node:crypto";
import { Type, type Static, type TSchema } from "typebox";
import { Value } from "typebox/value";
import { safeEqual } from "../lib/crypto.js";
import { AppError } from "../lib/errors.js";
import { keyOfSecret } from "../webhooks/signer.js";
import { PAYMENT_PROVIDERS, PROVIDER_MANIFEST, type PaymentProviderType, type WebhookScheme } from "./manifest.js";

/**
 * The providers' own signature schemes for incoming notifications (docs/webhooks.md "Provider
 * schemes"), each verified with the brand's `webhookSecret`, and the translation of each provider's
 * payload into one normalised notification.
 */

export type Headers = Record<string, string | string[] | undefined>;
export type PaymentStatus = "succeeded" | "failed" | "refunded";

/** What every provider's payload is translated into. `status` null: an event type we do not act on. */
export interface ProviderNotification {
  /** The provider's event id (deduplication key). */
  id: string;
  /** Our type (`payment.succeeded` …) when mapped, else the provider's own event type. */
  type: string;
  status: PaymentStatus | null;
  /** Our order id (the merchant's `orderId`), when the payload carries it. */
  orderId: string | null;
  transactionId?: string;
  reason?: string;
  /** A brand named inside the payload (only the Standard Webhooks form has it). */
  brandId?: string;
  payload: Record<string, unknown>;
}

export interface SignatureCheck {
  valid: boolean;
  /** The signed timestamp (Unix seconds) when the scheme has one: checked against the 5-minute tolerance. */
  timestamp?: number;
}

export interface ProviderScheme {
  /** Human name of the scheme, for docs and logs. */
  name: string;
  /** The header whose presence says the notification is signed with this scheme. */
  signatureHeader: string;
  /** Checks the signature over the exact request bytes; throws 400 for unreadable headers. */
  verify(headers: Headers, raw: Buffer, secret: string): SignatureCheck;
  /** Translates the (not yet trusted) payload; throws 400 for malformed or unexpected bodies. */
  parse(text: string, headers: Headers): ProviderNotification;
}

export const refused = (message: string) => new AppError("BAD_REQUEST", message);

export const headerOf = (headers: Headers, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const hmac = (key: string | Uint8Array, ...parts: (string | Buffer)[]) => {
  const mac = createHmac("sha256", key);
  for (const part of parts) mac.update(part);
  return mac;
};

/** `a=1,b=2,b=3` → { a: ["1"], b: ["2", "3"] }. */
function pairs(header: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const item of header.split(",")) {
    const at = item.indexOf("=");
    if (at <= 0) continue;
    const key = item.slice(0, at).trim();
    out.set(key, [...(out.get(key) ?? []), item.slice(at + 1).trim()]);
  }
  return out;
}

const timestampOf = (value: string | undefined): number => {
  if (value === undefined || !/^\d{1,12}$/.test(value)) throw refused("Invalid webhook timestamp");
  return Number(value);
};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError("INVALID_JSON", "Malformed JSON body");
  }
}

function checked<T extends TSchema>(schema: T, value: unknown): Static<T> {
  if (!Value.Check(schema, value)) {
    const first = [...Value.Errors(schema, value)][0];
    throw new AppError("VALIDATION_ERROR", `Invalid notification: ${first?.message ?? "unexpected shape"}`, first?.instancePath?.replace(/^\//, "").replaceAll("/", ".") || undefined);
  }
  return value as Static<T>;
}

const Id = Type.String({ minLength: 1, maxLength: 200 });
const OptionalText = (maxLength = 200) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));

/** The normalised body (the demo scheme's and the Standard Webhooks providers'). */
export const NormalisedBody = Type.Object({
  id: Id,
  type: Type.Union([Type.Literal("payment.succeeded"), Type.Literal("payment.failed"), Type.Literal("payment.refunded")]),
  data: Type.Object({
    orderId: Id,
    transactionId: Type.Optional(Type.String({ maxLength: 200 })),
    brandId: Type.Optional(Type.String({ maxLength: 200 })),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  }),
});

const STATUS_OF_TYPE = { "payment.succeeded": "succeeded", "payment.failed": "failed", "payment.refunded": "refunded" } as const;

export function parseNormalised(text: string): ProviderNotification {
  const body = checked(NormalisedBody, parseJson(text));
  return {
    id: body.id,
    type: body.type,
    status: STATUS_OF_TYPE[body.type],
    orderId: body.data.orderId,
    transactionId: body.data.transactionId,
    reason: body.data.reason,
    brandId: body.data.brandId,
    payload: body as unknown as Record<string, unknown>,
  };
}

/**
 * intent_gateway: the Stripe scheme. `Stripe-Signature: t=<Unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">` (several v1 during a secret roll), keyed with the whole secret (`whsec_…`) as
 * UTF-8. Events: `payment_intent.succeeded`, `payment_intent.payment_failed`, `charge.refunded`;
 * our order id is the intent's (or charge's) `metadata.orderId`, as initialize sets it.
 */
const StripeEvent = Type.Object({
  id: Id,
  type: Type.String({ minLength: 1, maxLength: 200 }),
  data: Type.Object({
    object: Type.Object({
      id: Type.String({ maxLength: 200 }),
      metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      payment_intent: OptionalText(),
      last_payment_error: Type.Optional(Type.Union([Type.Object({ code: OptionalText(), decline_code: OptionalText() }), Type.Null()])),
    }),
  }),
});

export const stripeScheme: ProviderScheme = {
  name: "Stripe-Signature",
  signatureHeader: "stripe-signature",
  verify(headers, raw, secret) {
    const parts = pairs(headerOf(headers, "stripe-signature") ?? "");
    const timestamp = timestampOf(parts.get("t")?.[0]);
    const expected = hmac(secret, `${timestamp}.`, raw).digest("hex");
    return { valid: (parts.get("v1") ?? []).some((candidate) => safeEqual(candidate, expected)), timestamp };
  },
  parse(text) {
    const event = checked(StripeEvent, parseJson(text));
    const object = event.data.object;
    const orderId = typeof object.metadata?.orderId === "string" && object.metadata.orderId ? object.metadata.orderId : null;
    const base = { id: event.id, orderId, payload: event as unknown as Record<string, unknown> };
    switch (event.type) {
      case "payment_intent.succeeded":
        return { ...base, type: "payment.succeeded", status: "succeeded", transactionId: object.id };
      case "payment_intent.payment_failed":
        return {
          ...base,
          type: "payment.failed",
          status: "failed",
          transactionId: object.id,
          reason: object.last_payment_error?.decline_code ?? object.last_payment_error?.code ?? undefined,
        };
      case "charge.refunded":
        return { ...base, type: "payment.refunded", status: "refunded", transactionId: object.payment_intent ?? object.id };
      default:
        return { ...base, type: event.type, status: null };
    }
  },
};

/**
 * vault_gateway_a and vault_gateway_b: the NMI scheme. `Webhook-Signature: t=<nonce>,s=<hex HMAC-SHA256 of
 * "<nonce>.<raw body>">` keyed with the signing key as UTF-8. The nonce is not a time: replays are
 * stopped by the event id deduplication alone. Events `transaction.sale.success` /
 * `transaction.capture.success`, `transaction.sale.failure`, `transaction.refund.success`;
 * `event_body.order_id` is our order id (sent as `orderid`).
 */
const NmiEvent = Type.Object({
  event_id: Id,
  event_type: Type.String({ minLength: 1, maxLength: 200 }),
  event_body: Type.Object({
    transaction_id: OptionalText(),
    order_id: OptionalText(),
    response_text: OptionalText(500),
  }),
});

export const nmiScheme: ProviderScheme = {
  name: "Webhook-Signature (NMI)",
  signatureHeader: "webhook-signature",
  verify(headers, raw, secret) {
    const parts = pairs(headerOf(headers, "webhook-signature") ?? "");
    const nonce = parts.get("t")?.[0];
    const signatures = parts.get("s") ?? [];
    if (!nonce || signatures.length === 0) throw refused("Invalid webhook signature");
    const expected = hmac(secret, `${nonce}.`, raw).digest("hex");
    return { valid: signatures.some((candidate) => safeEqual(candidate, expected)) };
  },
  parse(text) {
    const event = checked(NmiEvent, parseJson(text));
    const body = event.event_body;
    const base = { id: event.event_id, orderId: body.order_id || null, transactionId: body.transaction_id ?? undefined, payload: event as unknown as Record<string, unknown> };
    switch (event.event_type) {
      case "transaction.sale.success":
      case "transaction.capture.success":
        return { ...base, type: "payment.succeeded", status: "succeeded" };
      case "transaction.sale.failure":
        return { ...base, type: "payment.failed", status: "failed", reason: body.response_text ?? undefined };
      case "transaction.refund.success":
        return { ...base, type: "payment.refunded", status: "refunded" };
      default:
        return { ...base, type: event.event_type, status: null };
    }
  },
};

/**
 * hosted_store: the Shopify scheme. `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the raw body>`
 * keyed with the app's secret as UTF-8; no timestamp is signed. Event id `X-Shopify-Webhook-Id`,
 * topic `X-Shopify-Topic`. Topics `orders/*` carry the order: `financial_status` `paid` →
 * succeeded, `refunded` → refunded, `voided` → failed; our order id is the `orderId` note attribute
 * (or the `order:<id>` tag) initialize puts on the draft, which the order keeps.
 */
const ShopifyOrder = Type.Object({
  id: Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 200 })])),
  financial_status: OptionalText(),
  note_attributes: Type.Optional(Type.Array(Type.Object({ name: Type.String(), value: Type.Unknown() }))),
  tags: OptionalText(5000),
});

const SHOPIFY_STATUS: Record<string, PaymentStatus> = { paid: "succeeded", refunded: "refunded", voided: "failed" };

export const shopifyScheme: ProviderScheme = {
  name: "X-Shopify-Hmac-Sha256",
  signatureHeader: "x-shopify-hmac-sha256",
  verify(headers, raw, secret) {
    const expected = hmac(secret, raw).digest("base64");
    return { valid: safeEqual((headerOf(headers, "x-shopify-hmac-sha256") ?? "").trim(), expected) };
  },
  parse(text, headers) {
    const id = headerOf(headers, "x-shopify-webhook-id") ?? headerOf(headers, "x-shopify-event-id");
    const topic = headerOf(headers, "x-shopify-topic");
    if (!id || id.length > 200) throw new AppError("VALIDATION_ERROR", "Invalid notification: missing X-Shopify-Webhook-Id", "x-shopify-webhook-id");
    if (!topic || topic.length > 200) throw new AppError("VALIDATION_ERROR", "Invalid notification: missing X-Shopify-Topic", "x-shopify-topic");
    const order = checked(ShopifyOrder, parseJson(text));
    const note = order.note_attributes?.find((n) => n.name === "orderId")?.value;
    const tag = (order.tags ?? "")
      .split(",")
      .map((t) => t.trim())
      .find((t) => t.startsWith("order:"));
    const orderId = typeof note === "string" && note ? note : tag ? tag.slice("order:".length) || null : null;
    const status = topic.startsWith("orders/") ? (SHOPIFY_STATUS[order.financial_status ?? ""] ?? null) : null;
    const type = status ? (`payment.${status}` as const) : topic;
    return { id, type, status, orderId, payload: { topic, ...(order as Record<string, unknown>) } };
  },
};

/**
 * order_crm_a, order_crm_b, cart_gateway: Standard Webhooks (https://www.standardwebhooks.com).
 * `webhook-id`, `webhook-timestamp: <Unix seconds>`, `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<raw body>">` (several space-separated during a roll), keyed with the base64
 * decoding of a `whsec_…` secret, else the secret's UTF-8 bytes (as our own outgoing webhooks,
 * CONTRACT §29). The body is the normalised form.
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
  "vault-gateway": nmiScheme,
  "hosted-store": shopifyScheme,
  "standard-webhooks": standardScheme,
};

/** Each provider's scheme, as the manifest names it: every provider of the manifest has one. */
export const PROVIDER_SCHEMES = Object.fromEntries(PAYMENT_PROVIDERS.map((p) => [p, SCHEMES[PROVIDER_MANIFEST[p].webhookScheme]])) as Record<PaymentProviderType, ProviderScheme>;
