import { Type, type Static } from "typebox";
import { centsOf } from "../http-client.js";
import { safeEqual } from "../../lib/crypto.js";
import { checked, headerOf, hmac, Id, OptionalText, pairs, parseJson, refused, type DisputeNotice, type ProviderScheme } from "../webhook-scheme-kit.js";

/**
 * vault_gateway_a and vault_gateway_b: the NMI scheme. `Webhook-Signature: t=<nonce>,s=<hex HMAC-SHA256 of
 * "<nonce>.<raw body>">` keyed with the signing key as UTF-8. The nonce is not a time: replays are
 * stopped by the event id deduplication alone. Events `transaction.sale.success` /
 * `transaction.capture.success`, `transaction.sale.failure`, `transaction.refund.success`;
 * `event_body.order_id` is our order id (sent as `orderid`). `chargeback.batch.complete` reports the
 * chargebacks the processor took, each entry with its chargeback id, amount (decimal text) and reason;
 * an entry is tied to its charge by `transaction_id` (else `order_id`). NMI reports no outcome of a
 * chargeback, so each stays open (`needs_response`) until the merchant accepts it. Both vault
 * gateways speak the same wire, so this one scheme is vault_gateway_b's too: its manifest entry names
 * `"vault-gateway-a"` (this folder) instead of keeping a copy in its own folder.
 */
const NmiEvent = Type.Object({
  event_id: Id,
  event_type: Type.String({ minLength: 1, maxLength: 200 }),
  event_body: Type.Object({
    transaction_id: OptionalText(),
    order_id: OptionalText(),
    response_text: OptionalText(500),
    chargebacks: Type.Optional(
      Type.Array(
        Type.Object({
          id: Id,
          transaction_id: OptionalText(),
          order_id: OptionalText(),
          amount: Type.String({ pattern: "^\\d{1,10}(\\.\\d{1,2})?$" }),
          reason: OptionalText(500),
          reason_code: OptionalText(),
        }),
        { maxItems: 1000 },
      ),
    ),
  }),
});

const chargebacksOf = (body: Static<typeof NmiEvent>["event_body"]): DisputeNotice[] =>
  (body.chargebacks ?? []).map((c) => ({
    providerDisputeId: c.id,
    transactionId: c.transaction_id || null,
    orderId: c.order_id || null,
    amountCents: centsOf(c.amount),
    currency: null,
    reason: c.reason || c.reason_code || null,
    status: "needs_response",
    dueAt: null,
  }));

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
      case "chargeback.batch.complete":
        return { ...base, type: "dispute.created", status: null, disputes: chargebacksOf(body) };
      default:
        return { ...base, type: event.event_type, status: null };
    }
  },
};
