import { Type } from "typebox";
import { safeEqual } from "../../lib/crypto.js";
import { AppError } from "../../lib/errors.js";
import { minorDigits } from "../../lib/money.js";
import { checked, headerOf, hmac, OptionalText, parseJson, type DisputeNotice, type DisputeStatus, type PaymentStatus, type ProviderNotification, type ProviderScheme } from "../webhook-scheme-kit.js";

/**
 * hosted_store: the Shopify scheme. `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the raw body>`
 * keyed with the app's secret as UTF-8; no timestamp is signed. Event id `X-Shopify-Webhook-Id`,
 * topic `X-Shopify-Topic`. Topics `orders/*` carry the order: `financial_status` `paid` →
 * succeeded, `refunded` → refunded, `voided` → failed; our order id is the `orderId` note attribute
 * (or the `order:<id>` tag) initialize puts on the draft, which the order keeps. Topics `disputes/*`
 * carry a Dispute: it names the store's order (`order_id`), which is the charge's provider order id
 * with us; Shopify's dispute statuses are ours.
 */
const ShopifyOrder = Type.Object({
  id: Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 200 })])),
  financial_status: OptionalText(),
  note_attributes: Type.Optional(Type.Array(Type.Object({ name: Type.String(), value: Type.Unknown() }))),
  tags: OptionalText(5000),
});

const ShopifyDispute = Type.Object({
  id: Type.Union([Type.Number(), Type.String({ minLength: 1, maxLength: 200 })]),
  order_id: Type.Optional(Type.Union([Type.Number(), Type.String({ maxLength: 200 }), Type.Null()])),
  amount: Type.Optional(Type.String({ pattern: "^[0-9]{1,12}(\\.[0-9]{1,3})?$" })),
  currency: Type.Optional(Type.String({ pattern: "^[A-Za-z]{3}$" })),
  reason: OptionalText(),
  status: Type.Union(["needs_response", "under_review", "charge_refunded", "accepted", "won", "lost"].map((s) => Type.Literal(s))),
  evidence_due_by: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
});

function disputeOf(body: unknown): DisputeNotice {
  const dispute = checked(ShopifyDispute, body);
  const due = dispute.evidence_due_by ? Date.parse(dispute.evidence_due_by) : Number.NaN;
  const currency = dispute.currency?.toUpperCase() ?? null;
  const digits = minorDigits(currency ?? "USD");
  return {
    providerDisputeId: String(dispute.id),
    transactionId: null,
    orderId: null,
    providerOrderId: dispute.order_id === null || dispute.order_id === undefined ? null : String(dispute.order_id),
    amountCents: dispute.amount === undefined ? null : Math.round(Number(dispute.amount) * 10 ** digits),
    currency,
    reason: dispute.reason || null,
    status: dispute.status as DisputeStatus,
    dueAt: Number.isFinite(due) ? due : null,
  };
}

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
    if (topic.startsWith("disputes/")) {
      const body = parseJson(text);
      const type = topic === "disputes/create" ? "dispute.created" : "dispute.updated";
      return { id, type, status: null, orderId: null, disputes: [disputeOf(body)], payload: { topic, ...(body as Record<string, unknown>) } } satisfies ProviderNotification;
    }
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
