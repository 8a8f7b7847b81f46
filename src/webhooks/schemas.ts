import { Type, type Static } from "typebox";
import { LivemodeMember, LivemodeParam } from "../http/mode.js";
import { EVENT_TYPES } from "../outbox/events.js";

// SPEC "Administration: webhook endpoints" and "Events"; CONTRACT §14, §29, §33; decisions in docs/webhooks.md.

export const DELIVERIES_PAGE_SIZE_DEFAULT = 20;
export const DELIVERIES_PAGE_SIZE_MAX = 100;

const Stats = Type.Object({
  totalDeliveries: Type.Integer(),
  successRate: Type.Number({ description: "percent of finished deliveries that succeeded (0 when none finished)" }),
});

export const CreateEndpointBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "defaults to the URL's host" })),
  url: Type.String({ minLength: 1, maxLength: 2048 }),
  secret: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "`whsec_<base64>` or at least 16 characters; generated (whsec_) when omitted" })),
  events: Type.Optional(Type.Array(Type.Union([Type.Literal("*"), ...EVENT_TYPES.map((e) => Type.Literal(e))]), { minItems: 1, maxItems: 32, description: "`*` means all; default [\"*\"]" })),
  headers: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 100, pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$" }), Type.String({ maxLength: 1000 }), { maxProperties: 20 })),
  enabled: Type.Optional(Type.Boolean({ default: true })),
  livemode: Type.Optional(Type.Boolean({ description: "the mode of events it receives (CONTRACT §39): true live, false test; default the brand's mode" })),
});
export type CreateEndpointBody = Static<typeof CreateEndpointBody>;

export const EndpointView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  headers: Type.Record(Type.String(), Type.String()),
  enabled: Type.Boolean(),
  /** Masked (`whsec_…f3Qa`), except in the create response. */
  secret: Type.String(),
  disabledReason: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Number({ description: "Unix ms" }),
  livemode: Type.Boolean({ description: "it receives the events of this mode only" }),
  stats: Stats,
});
export type EndpointView = Static<typeof EndpointView>;

export const EndpointsQuery = Type.Object({ livemode: LivemodeParam });
export type EndpointsQuery = Static<typeof EndpointsQuery>;

export const EndpointsReply = Type.Object({
  livemode: LivemodeMember,
  endpoints: Type.Array(EndpointView),
  stats: Stats,
  availableEvents: Type.Array(Type.String()),
});
export type EndpointsReply = Static<typeof EndpointsReply>;

export const CreateEndpointReply = Type.Object({ success: Type.Literal(true), ...EndpointView.properties, secret: Type.String({ description: "the full secret, shown this once" }) });

export const EndpointIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const DeliveryIdParams = Type.Object({ deliveryId: Type.String({ minLength: 1, maxLength: 100 }) });

export const AttemptView = Type.Object({
  attempt: Type.Integer(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  success: Type.Boolean(),
  createdAt: Type.Number({ description: "Unix ms" }),
  responseBody: Type.Union([Type.String(), Type.Null()], { description: "the receiver's answer, its first 2 KB (cut: ends with …); null when it sent none, or for attempts made before this was kept" }),
});
export type AttemptView = Static<typeof AttemptView>;

export const DeliveryView = Type.Object({
  id: Type.String({ description: "the webhook-id header, the same on every attempt" }),
  eventId: Type.String(),
  eventType: Type.String(),
  status: Type.Union([Type.Literal("pending"), Type.Literal("succeeded"), Type.Literal("failed")]),
  attempts: Type.Integer(),
  nextAttemptAt: Type.Union([Type.Number(), Type.Null()], { description: "Unix ms; null once finished" }),
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Number(),
  completedAt: Type.Union([Type.Number(), Type.Null()]),
  requestBody: Type.String({ description: "the exact body every attempt sent: { type, timestamp, data } (CONTRACT §14)" }),
  attemptLog: Type.Array(AttemptView),
});
export type DeliveryView = Static<typeof DeliveryView>;

export const DeliveriesQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 1_000_000, default: DELIVERIES_PAGE_SIZE_DEFAULT, description: "at most 100; larger values are capped" }),
  status: Type.Optional(Type.Union([Type.Literal("pending"), Type.Literal("succeeded"), Type.Literal("failed")])),
  livemode: Type.Optional(Type.Boolean({ description: "deliveries of this mode only; default the endpoint's mode" })),
});
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const DeliveriesReply = Type.Object({
  endpointId: Type.String(),
  livemode: LivemodeMember,
  deliveries: Type.Array(DeliveryView),
  pagination: Type.Object({ page: Type.Integer(), limit: Type.Integer(), total: Type.Integer(), totalPages: Type.Integer() }),
});
export type DeliveriesReply = Static<typeof DeliveriesReply>;

/** The outcome of a test send or a resend: the operation succeeded; `delivered` says whether the receiver took it. */
export const SendReply = Type.Object({
  success: Type.Literal(true),
  delivered: Type.Boolean(),
  delivery: DeliveryView,
});
export type SendReply = Static<typeof SendReply>;

export const DeleteEndpointReply = Type.Object({ success: Type.Literal(true), id: Type.String() });
