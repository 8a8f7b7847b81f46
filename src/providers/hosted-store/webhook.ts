import { Type } from "typebox";
import { safeEqual } from "../../lib/crypto.js";
import { AppError } from "../../lib/errors.js";
import { checked, headerOf, hmac, OptionalText, parseJson, type PaymentStatus, type ProviderScheme } from "../webhook-scheme-kit.js";

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
