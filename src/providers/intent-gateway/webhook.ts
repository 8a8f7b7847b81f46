import { Type, type Static } from "typebox";
import { safeEqual } from "../../lib/crypto.js";
import { checked, headerOf, hmac, Id, OptionalText, pairs, parseJson, timestampOf, type DisputeNotice, type DisputeStatus, type ProviderScheme } from "../webhook-scheme-kit.js";

/**
 * intent_gateway: the Stripe scheme. `Stripe-Signature: t=<Unix seconds>,v1=<hex HMAC-SHA256 of
 * "<t>.<raw body>">` (several v1 during a secret roll), keyed with the whole secret (`whsec_…`) as
 * UTF-8. Events: `payment_intent.succeeded`, `payment_intent.payment_failed`, `charge.refunded`;
 * our order id is the intent's (or charge's) `metadata.orderId`, as initialize sets it. Every
 * `charge.dispute.*` event (created, updated, closed, funds_withdrawn, funds_reinstated) carries the
 * Dispute object: its `payment_intent` names the charge.
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
      // A Dispute's members.
      amount: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000_00 })),
      currency: Type.Optional(Type.String({ pattern: "^[A-Za-z]{3}$" })),
      reason: OptionalText(),
      status: OptionalText(),
      evidence_details: Type.Optional(Type.Object({ due_by: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 1e11 }), Type.Null()])) })),
    }),
  }),
});

/** The gateway's dispute statuses onto ours; inquiries (`warning_*`) count as disputes, and one closed without a chargeback as won. */
const DISPUTE_STATUS: Record<string, DisputeStatus> = {
  warning_needs_response: "needs_response",
  needs_response: "needs_response",
  warning_under_review: "under_review",
  under_review: "under_review",
  won: "won",
  warning_closed: "won",
  prevented: "won",
  lost: "lost",
  charge_refunded: "charge_refunded",
};

function disputeOf(object: Static<typeof StripeEvent>["data"]["object"], orderId: string | null): DisputeNotice {
  const dueBy = object.evidence_details?.due_by;
  return {
    providerDisputeId: object.id,
    transactionId: object.payment_intent ?? null,
    orderId,
    amountCents: object.amount ?? null,
    currency: object.currency?.toUpperCase() ?? null,
    reason: object.reason ?? null,
    status: DISPUTE_STATUS[object.status ?? ""] ?? "needs_response",
    dueAt: typeof dueBy === "number" ? dueBy * 1000 : null,
  };
}

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
        if (event.type.startsWith("charge.dispute.")) return { ...base, type: event.type.replace("charge.", ""), status: null, disputes: [disputeOf(object, orderId)] };
        return { ...base, type: event.type, status: null };
    }
  },
};
