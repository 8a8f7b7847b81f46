import { Type, type Static } from "typebox";
import { LivemodeMember, LivemodeParam } from "../http/mode.js";
import { UnixMsParam } from "../lib/dates.js";
import { Metadata } from "../lib/metadata.js";
import { PAYMENT_PROVIDERS } from "../providers/manifest.js";
import { DisputeView } from "./disputes/schemas.js";

// Issue 17: the orders list and detail of the back office and of /api/v1 (docs/orders.md).

export const ORDER_PAGE_SIZE_DEFAULT = 25;
export const ORDER_PAGE_SIZE_MAX = 100;

export const ORDER_STATUSES = ["paid", "partially_refunded", "refunded", "disputed", "failed"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

const Cents = (description: string) => Type.Integer({ minimum: 0, maximum: 100_000_000_00, description });

export const OrderListQuery = Type.Object({
  q: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "an order id or transaction id (exact), an email or a customer name (case-insensitive, from the start)" })),
  status: Type.Optional(Type.Enum([...ORDER_STATUSES])),
  provider: Type.Optional(Type.Enum([...PAYMENT_PROVIDERS])),
  from: Type.Optional(UnixMsParam("created at or after")),
  to: Type.Optional(UnixMsParam("created before")),
  minAmount: Type.Optional(Cents("the checkout payment's amount at least this, minor units")),
  maxAmount: Type.Optional(Cents("the checkout payment's amount at most this, minor units")),
  test: Type.Optional(Type.Boolean({ description: "true: demo-mode orders only; false: real-money orders only; absent: both (within the mode shown)" })),
  livemode: LivemodeParam,
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "nextCursor of the previous page" })),
  limit: Type.Integer({ minimum: 1, maximum: ORDER_PAGE_SIZE_MAX, default: ORDER_PAGE_SIZE_DEFAULT }),
});
export type OrderListQuery = Static<typeof OrderListQuery>;

/** The export takes the list's filters; it has no pages. */
export const OrderExportQuery = Type.Omit(OrderListQuery, ["cursor", "limit"]);
export type OrderExportQuery = Static<typeof OrderExportQuery>;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Json = Type.Object({}, { additionalProperties: true });

/** One charge of an order: the checkout payment or an accepted upsell. */
export const OrderChargeView = Type.Object({
  id: Type.String({ description: "our order id (ord_…)" }),
  orderId: Type.String({ description: "the merchant's order id" }),
  status: Type.Enum([...ORDER_STATUSES]),
  amount: Type.Integer({ description: "minor units" }),
  currency: Type.String(),
  provider: Type.String(),
  transactionId: Type.String(),
  refunded: Type.Integer({ description: "refunded of this charge so far, minor units" }),
  createdAt: Type.Integer({ description: "Unix ms" }),
});
export type OrderChargeView = Static<typeof OrderChargeView>;

export const OrderSummary = Type.Object({
  ...OrderChargeView.properties,
  customerEmail: Type.String(),
  customerName: Type.String(),
  test: Type.Boolean({ description: "paid through a demo-mode provider: no real money moved" }),
  livemode: Type.Boolean({ description: "live (real money) or test (CONTRACT §39)" }),
  /** The accepted upsells of this order, oldest first. */
  upsells: Type.Array(OrderChargeView),
});
export type OrderSummary = Static<typeof OrderSummary>;

export const OrderListReply = Type.Object({
  livemode: LivemodeMember,
  orders: Type.Array(OrderSummary),
  nextCursor: Nullable(Type.String({ description: "pass as cursor for the next page; null on the last page" })),
});
export type OrderListReply = Static<typeof OrderListReply>;

export const OrderLineItem = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  sku: Nullable(Type.String()),
  quantity: Type.Integer(),
  unitPrice: Type.Integer({ description: "minor units" }),
});

export const REFUND_REASONS = ["requested_by_customer", "duplicate", "fraudulent", "other"] as const;

export const RefundBody = Type.Object({
  amount: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000_00, description: "minor units; default: all that is left of the charge" })),
  reason: Type.Enum([...REFUND_REASONS]),
  note: Type.Optional(Type.String({ maxLength: 1000 })),
  charge: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "which charge: the order's own (default) or one upsell's, by our id or its order id" })),
  metadata: Type.Optional(Metadata),
});
export type RefundBody = Static<typeof RefundBody>;

export const RefundView = Type.Object({
  id: Type.String(),
  orderId: Type.String({ description: "the refunded charge's order id" }),
  chargeId: Type.String({ description: "our id of the refunded charge (ord_…)" }),
  amount: Type.Integer(),
  currency: Type.String(),
  status: Type.Enum(["pending", "succeeded", "failed"]),
  reason: Type.Enum([...REFUND_REASONS]),
  providerRefundId: Nullable(Type.String()),
  metadata: Metadata,
  createdAt: Type.Integer({ description: "Unix ms" }),
});
export type RefundView = Static<typeof RefundView>;

export const RefundReply = Type.Object({ success: Type.Boolean(), refund: RefundView });
export type RefundReply = Static<typeof RefundReply>;

/** One webhook delivery of an event: to an endpoint of the brand, or to the checkout token's webhookUrl. */
export const TimelineDelivery = Type.Object({
  id: Type.String({ description: "the delivery's id (msg_…): POST /api/admin/webhooks/deliveries/<id>/resend sends it again" }),
  target: Type.Union([Type.Literal("endpoint"), Type.Literal("token")]),
  endpointId: Nullable(Type.String()),
  url: Type.String(),
  status: Type.Union([Type.Literal("pending"), Type.Literal("succeeded"), Type.Literal("failed")]),
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer()),
  completedAt: Nullable(Type.Integer({ description: "Unix ms" })),
});

/** An event of the order (its checkout, upsells, refunds), oldest first, with its deliveries. */
export const TimelineEvent = Type.Object({
  id: Type.String(),
  type: Type.String(),
  createdAt: Type.Integer({ description: "Unix ms" }),
  data: Json,
  deliveries: Type.Array(TimelineDelivery),
});

/** One provider attempt of the checkout's pay (issue 34): the cascade's declines stay visible. */
export const OrderAttemptView = Type.Object({
  provider: Type.String(),
  result: Type.Union([Type.Literal("approved"), Type.Literal("declined"), Type.Literal("failed"), Type.Literal("requires_action")]),
  declineCode: Nullable(Type.String({ description: "the normalised decline code (docs/routing.md)" })),
  declineClass: Nullable(Type.Union([Type.Literal("soft"), Type.Literal("hard")])),
  providerCode: Nullable(Type.String({ description: "the provider's own code, as it answered" })),
  routeRule: Type.String({ description: "the routing rule's name that chose this provider" }),
  routeReason: Type.String(),
  at: Type.Integer({ description: "Unix ms" }),
});
export type OrderAttemptView = Static<typeof OrderAttemptView>;

/** The approved attempt's card: never more than the brand, the last four and the issuing country. */
export const OrderCardView = Type.Object({
  brand: Nullable(Type.String({ description: "visa, mastercard, …" })),
  last4: Nullable(Type.String({ minLength: 4, maxLength: 4 })),
  binCountry: Nullable(Type.String({ description: "the issuing country (ISO 3166-1 alpha-2)" })),
});
export type OrderCardView = Static<typeof OrderCardView>;

export const OrderDetail = Type.Object({
  ...OrderSummary.properties,
  providerOrderId: Nullable(Type.String()),
  customer: Nullable(Json),
  billingAddress: Nullable(Json),
  shippingAddress: Nullable(Json),
  lineItems: Type.Array(OrderLineItem),
  crm: Nullable(Type.Object({ provider: Type.String(), orderId: Nullable(Type.String()), status: Nullable(Type.String()) })),
  affId: Nullable(Type.String()),
  subId: Nullable(Type.String()),
  /** The checkout's id (its events' `checkoutId`; GET /api/v1/checkouts/<id>), null for orders without one. */
  checkoutId: Nullable(Type.String()),
  /** The checkout's metadata (issue 33). */
  metadata: Metadata,
  /** Refunds of the order's charges (its own and its upsells'), oldest first. */
  refunds: Type.Array(RefundView),
  /** Disputes of the order's charges (its own and its upsells'), oldest first. */
  disputes: Type.Array(DisputeView),
  commissions: Type.Array(
    Type.Object({
      id: Type.String(),
      orderId: Type.String(),
      salespersonId: Type.String(),
      salespersonName: Nullable(Type.String()),
      amount: Type.Integer({ description: "the commission, minor units" }),
      currency: Type.String(),
      status: Type.String(),
    }),
  ),
  /** The provider attempts of the checkout's pay, oldest first; [] for orders paid through the old provider endpoints. */
  attempts: Type.Array(OrderAttemptView),
  /** The card of the approved attempt; null when no attempt was kept (old provider endpoints). */
  card: Nullable(OrderCardView),
  /** The order's events and their webhook deliveries, kept for RETENTION_DAYS once delivered (docs/orders.md). */
  timeline: Type.Array(TimelineEvent),
});
export type OrderDetail = Static<typeof OrderDetail>;

export const OrderIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) });
export type OrderIdParams = Static<typeof OrderIdParams>;
export const MerchantOrderIdParams = Type.Object({ orderId: Type.String({ minLength: 1, maxLength: 255 }) });
export type MerchantOrderIdParams = Static<typeof MerchantOrderIdParams>;
