import { Type } from "typebox";
import { safeEqual } from "../../lib/crypto.js";
import { checked, headerOf, hmac, Id, OptionalText, pairs, parseJson, timestampOf, type ProviderScheme } from "../webhook-scheme-kit.js";

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
