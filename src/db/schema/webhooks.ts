import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at } from "./columns.js";

/** A merchant's webhook endpoint, per brand (docs/webhooks.md). The secret is sealed with ENCRYPTION_KEY. */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    brandId: text("brand_id").notNull(),
    name: text("name").notNull(),
    url: text("url").notNull(),
    /** AES-256-GCM sealed secret as given or generated (`whsec_…` or plain text, CONTRACT §29). */
    sealedSecret: text("sealed_secret").notNull(),
    /** The masked form shown by GET, e.g. `whsec_…f3Qa`. */
    secretHint: text("secret_hint").notNull(),
    events: jsonb("events").$type<string[]>().notNull(),
    headers: jsonb("headers").$type<Record<string, string>>().notNull().default({}),
    enabled: boolean("enabled").notNull().default(true),
    /** Why the service disabled it (`gone` after a 410, `failing` after 5 days of failures). */
    disabledReason: text("disabled_reason"),
    /** First failure of the current failure streak; cleared by a success. */
    failingSince: at("failing_since"),
    createdAt: at("created_at").notNull(),
    deletedAt: at("deleted_at"),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [index("webhook_endpoints_brand_idx").on(t.brandId)],
);

/**
 * One event (or test payload) to one target: an endpoint, or the checkout token's `webhookUrl`
 * (target `token`). Its id is the `webhook-id` header, stable across retries. `next_attempt_at` is
 * also the claim lease: a claimed row is pushed into the future, so a process that dies mid-send
 * leaves it due again later (at least once), while SKIP LOCKED keeps two live processes apart.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    eventId: text("event_id").notNull(),
    /** Endpoint id, or `token` for the checkout token's webhookUrl. */
    target: text("target").notNull(),
    endpointId: text("endpoint_id"),
    brandId: text("brand_id").notNull(),
    eventType: text("event_type").notNull(),
    url: text("url").notNull(),
    /** The exact body sent: `{ type, timestamp, data }` (CONTRACT §14). */
    body: text("body").notNull(),
    status: text("status").$type<"pending" | "succeeded" | "failed">().notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: at("next_attempt_at").notNull(),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: at("created_at").notNull(),
    completedAt: at("completed_at"),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_event_target_key").on(t.eventId, t.target),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.createdAt),
  ],
);

/** Every send of a delivery: what the merchant sees per attempt. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: text("id").primaryKey(),
    deliveryId: text("delivery_id").notNull(),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    success: boolean("success").notNull(),
    createdAt: at("created_at").notNull(),
    /**
     * The start of the receiver's answer (at most RESPONSE_BODY_KEPT bytes, send.ts), shown to the merchant
     * per attempt (issue 36); null when it sent none or did not answer. The request body is the delivery's `body`.
     */
    responseBody: text("response_body"),
  },
  (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId, t.createdAt)],
);

/** Provider notifications received at /api/webhooks/<provider>, deduplicated by (provider, event id, brand). */
export const incomingWebhookEvents = pgTable(
  "incoming_webhook_events",
  {
    id: text("id").primaryKey(),
    provider: text("provider").notNull(),
    providerEventId: text("provider_event_id").notNull(),
    type: text("type").notNull(),
    brandId: text("brand_id"),
    orderId: text("order_id"),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    /** `applied`, `ignored` (nothing to change) or `unmatched` (no checkout for the order). */
    outcome: text("outcome").notNull(),
    receivedAt: at("received_at").notNull(),
  },
  (t) => [
    // Deduplication is per brand (issue 31): one brand that knows another's event id in advance must not
    // suppress it. A notification no brand verified (demo scheme, no checkout) has no brand: '' here.
    uniqueIndex("incoming_webhook_events_brand_event_key").on(t.provider, t.providerEventId, sql`coalesce(${t.brandId}, '')`),
    index("incoming_webhook_events_received_idx").on(t.receivedAt),
  ],
);
