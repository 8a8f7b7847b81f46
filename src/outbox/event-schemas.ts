import { Type, type Static, type TSchema } from "typebox";
import type { EventPayloads, EventType } from "./events.js";

// The JSON Schema of each event's `data`, for the OpenAPI document's `webhooks` (issue 33) and the
// events API. Written beside the typed catalogue (events.ts) and checked against it at compile time
// (below): a member added to one and not the other fails `tsc`.

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const livemode = Type.Boolean({ description: "true: real money (a live credential); false: test" });
const charge = {
  orderId: Type.String(),
  transactionId: Type.String(),
  provider: Type.String(),
  amount: Type.Integer({ description: "minor units" }),
  currency: Type.String({ description: "ISO 4217" }),
};
const offer = {
  sessionId: Type.String(),
  orderId: Type.String(),
  originalOrderId: Type.String(),
  offerId: Type.String(),
  offerName: Type.String(),
};
const funnel = {
  funnelId: Type.Optional(Type.String()),
  funnelVersion: Type.Optional(Type.Integer()),
  stepIndex: Type.Optional(Type.Integer()),
  variantId: Type.Optional(Type.String()),
};
const DisputeStatus = Type.Union([
  Type.Literal("needs_response"),
  Type.Literal("under_review"),
  Type.Literal("won"),
  Type.Literal("lost"),
  Type.Literal("accepted"),
  Type.Literal("charge_refunded"),
]);
const dispute = { ...charge, disputeId: Type.String(), providerDisputeId: Type.String(), reason: Nullable(Type.String()), status: DisputeStatus };

// Receivers must accept members added later (docs/webhooks.md): no additionalProperties: false.
const metadata = Type.Record(Type.String(), Type.String(), { description: "the event's own object's metadata: the session's (upsell.*), the refund's (refund.*), else the checkout's" });
const checkoutMetadata = Type.Record(Type.String(), Type.String(), { description: "the checkout's metadata, on every event of its chain" });
const data = <P extends Record<string, TSchema>>(description: string, properties: P) => Type.Object({ ...properties, livemode, metadata, checkoutMetadata }, { description });

export const EVENT_DATA_SCHEMAS = {
  "checkout.created": data("A buyer opened the checkout (initialize)", {
    checkoutId: Type.String(),
    orderId: Type.String(),
    amount: Type.Integer(),
    currency: Type.String(),
    productName: Type.String(),
    provider: Type.String(),
    providerOrderId: Type.String(),
    customerEmail: Nullable(Type.String()),
  }),
  "checkout.completed": data("The checkout's payment was verified and the order created", { ...charge, checkoutId: Type.String(), customerEmail: Type.String() }),
  "payment.succeeded": data("A charge succeeded", { ...charge, providerOrderId: Nullable(Type.String()) }),
  "payment.failed": data("A card was declined at a provider endpoint or by every provider a checkout pay tried (then with its attempts), or a one-click upsell charge was refused (then with the upsell's ids)", {
    orderId: Type.String(),
    provider: Type.String(),
    amount: Type.Integer(),
    currency: Type.String(),
    reason: Type.String(),
    declineCode: Type.Optional(
      Type.String({ description: "Not in SPEC (issue 34): the decline as a common code across providers (`do_not_honor`, `insufficient_funds`, …; docs/orchestration.md \"Decline codes\"); always sent, absent on events from before" }),
    ),
    declineClass: Type.Optional(Type.Union([Type.Literal("soft"), Type.Literal("hard")], { description: "Not in SPEC (issue 34): soft: another provider may approve the card; hard: never retried" })),
    providerCode: Type.Optional(Type.String({ description: "Not in SPEC (issue 34): the provider's own code of the decline (its reason when it gave none)" })),
    originalOrderId: Type.Optional(Type.String()),
    sessionId: Type.Optional(Type.String()),
    offerId: Type.Optional(Type.String()),
    attempts: Type.Optional(
      Type.Array(
        Type.Object({
          provider: Type.String(),
          result: Type.Enum(["approved", "declined", "failed", "requires_action"]),
          declineCode: Nullable(Type.String({ description: "the normalised decline code (docs/orchestration.md)" })),
        }),
        { description: "A checkout pay (POST /api/checkout/pay): every provider it tried, in order (a cascade after a soft decline)" },
      ),
    ),
  }),
  "order.confirmed": data("The order is paid and recorded", {
    ...charge,
    customerEmail: Type.String(),
    customerName: Type.String(),
    lineItems: Type.Array(
      Type.Object({ id: Type.String(), name: Type.Optional(Type.String()), quantity: Type.Integer(), unitPrice: Type.Integer(), sku: Type.Optional(Type.String()) }),
    ),
    crmOrderId: Nullable(Type.String()),
    commissionId: Nullable(Type.String()),
  }),
  "upsell.accepted": data("The buyer accepted an upsell offer and it was charged", {
    ...offer,
    ...funnel,
    transactionId: Type.String(),
    provider: Type.String(),
    amount: Type.Integer(),
    currency: Type.String(),
    totalUpsellAmount: Type.Integer(),
  }),
  "upsell.declined": data("The buyer declined an upsell offer", { ...offer, ...funnel, nextOfferId: Nullable(Type.String()) }),
  "refund.succeeded": data("Money was given back on one charge (`orderId` is that charge's)", {
    ...charge,
    refundId: Type.String(),
    reason: Type.String(),
    providerRefundId: Type.String(),
    refundedTotal: Type.Integer({ description: "all refunds of the charge so far, minor units" }),
  }),
  "refund.failed": data("A refund was refused by the provider", { ...charge, refundId: Type.String(), reason: Type.String(), failureReason: Type.String() }),
  "dispute.created": data("A provider notified a dispute of a charge; `dueBy` (Unix ms) is when evidence is due", { ...dispute, dueBy: Nullable(Type.Integer()) }),
  "dispute.closed": data("The dispute closed: `won` or `charge_refunded` (the money stays), `lost` or `accepted` (it went back)", dispute),
} satisfies Record<EventType, TSchema>;

// Compile-time check, both ways: each schema's type is exactly the catalogue's payload.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemasMatchCatalogue: { [T in EventType]: Same<Static<(typeof EVENT_DATA_SCHEMAS)[T]>, EventPayloads[T]> } = {
  "checkout.created": true,
  "checkout.completed": true,
  "payment.succeeded": true,
  "payment.failed": true,
  "order.confirmed": true,
  "upsell.accepted": true,
  "upsell.declined": true,
  "refund.succeeded": true,
  "refund.failed": true,
  "dispute.created": true,
  "dispute.closed": true,
};
void schemasMatchCatalogue;

/** The body a webhook receiver gets for an event of `type` (CONTRACT §14, with the event id: issue 33). */
export function eventBodySchema(type: EventType) {
  return Type.Object(
    {
      id: Type.String({ description: "The event's id (`evt_…`), the same in every delivery and in GET /api/v1/events/<id>; the `webhook-id` header is per delivery" }),
      type: Type.Literal(type),
      timestamp: Type.String({ format: "date-time", description: "When the event happened (ISO 8601, UTC)" }),
      data: EVENT_DATA_SCHEMAS[type],
    },
    { description: (EVENT_DATA_SCHEMAS[type] as { description?: string }).description },
  );
}
