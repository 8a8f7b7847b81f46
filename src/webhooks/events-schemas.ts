import { Type, type Static } from "typebox";
import { EVENT_TYPES, type EventType as EventTypeName } from "../outbox/events.js";
import { SendReply } from "./schemas.js";

export const EVENT_PAGE_SIZE_DEFAULT = 20;
export const EVENT_PAGE_SIZE_MAX = 100;
/** The longest a list request may wait for a newer event (`waitSeconds`). */
export const EVENT_WAIT_SECONDS_MAX = 30;

const EventId = Type.String({ minLength: 1, maxLength: 100, pattern: "^evt_[\\w-]+$", description: "an event id, `evt_…`" });
// Unsafe: the static type of a union mapped from a list is lost (never); the schema is the same.
const EventType = Type.Unsafe<EventTypeName>(Type.Union(EVENT_TYPES.map((type) => Type.Literal(type))));

/** An event as the events API shows it: the webhook body (`id`, `type`, `timestamp`, `data`) plus `created` and `livemode`. */
export const EventView = Type.Object({
  id: Type.String({ description: "`evt_…`, the same as the `id` of the webhook body" }),
  type: Type.String({ description: "one of the catalogue's types (docs/webhooks.md \"Event payloads\"; the OpenAPI document's `webhooks`)" }),
  timestamp: Type.String({ format: "date-time", description: "as in the webhook body" }),
  created: Type.Integer({ description: "Unix ms" }),
  livemode: Type.Boolean(),
  data: Type.Record(Type.String(), Type.Unknown(), { description: "the type's payload, as in the webhook body" }),
});
export type EventView = Static<typeof EventView>;

export const EventListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: EVENT_PAGE_SIZE_MAX, description: `default ${EVENT_PAGE_SIZE_DEFAULT}` })),
  startingAfter: Type.Optional({ ...EventId, description: "the page after this event (older events): the last `id` of the previous page" }),
  endingBefore: Type.Optional({ ...EventId, description: "the page before this event (newer events, still newest first): the first `id` of the current page" }),
  type: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 400 }), {
      maxItems: 20,
      description: "only these types (the catalogue's): repeat the parameter (`type=a&type=b`) or separate with commas (`type=a,b`)",
    }),
  ),
  createdGte: Type.Optional(Type.Integer({ minimum: 0, description: "only events created at or after this Unix ms" })),
  createdLte: Type.Optional(Type.Integer({ minimum: 0, description: "only events created at or before this Unix ms" })),
  waitSeconds: Type.Optional(
    Type.Integer({ minimum: 0, maximum: EVENT_WAIT_SECONDS_MAX, description: "long poll: when the page would be empty, wait up to this long and answer as soon as an event for it exists" }),
  ),
});
export type EventListQuery = Static<typeof EventListQuery>;

export const EventListReply = Type.Object({
  data: Type.Array(EventView, { description: "newest first" }),
  hasMore: Type.Boolean({ description: "more events beyond this page in the direction asked (older for startingAfter or no cursor, newer for endingBefore)" }),
  livemode: Type.Boolean({ description: "the key's mode: the list holds only events of this mode" }),
});
export type EventListReply = Static<typeof EventListReply>;

export const EventIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const RedeliverBody = Type.Object({ endpointId: Type.String({ minLength: 1, maxLength: 100, description: "a webhook endpoint of the key's brand (`whe_…`)" }) });
export type RedeliverBody = Static<typeof RedeliverBody>;
export const RedeliverReply = SendReply;

export const TriggerBody = Type.Object({ type: EventType });
export type TriggerBody = Static<typeof TriggerBody>;
