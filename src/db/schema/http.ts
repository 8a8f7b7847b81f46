import { integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { at } from "./columns.js";

/** Stored first responses for Idempotency-Key (CONTRACT §17, §30). */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    /** caller + method + route */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    state: text("state").$type<"running" | "done">().notNull(),
    statusCode: integer("status_code"),
    responseBody: text("response_body"),
    responseHeaders: jsonb("response_headers").$type<Record<string, string>>(),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);

/**
 * What an Idempotency-Key made, for good (CONTRACT §40, docs/decisions.md "Idempotency keys"): one
 * effect per (owner, kind, key), inserted in the transaction that makes the resource, so a retry after
 * a crash or after the reservation above was taken over or expired finds it and answers its state.
 * Never purged: the key names that effect as long as the service runs.
 */
export const idempotencyEffects = pgTable(
  "idempotency_effects",
  {
    /** Whose key space: `brand:<id>`, `org:<id>` or `user:<id>`, always from the authenticated caller or the resource's own brand. */
    owner: text("owner").notNull(),
    /** What was made: `refund`, `checkout`, `upsell_session`, … (src/http/idempotent-effects.ts). */
    kind: text("kind").notNull(),
    key: text("key").notNull(),
    /** Keyed hash of route, path parameters and body: the same key with other parameters is 422. */
    requestHash: text("request_hash").notNull(),
    /** The id of what was made (the refund's, the checkout's, …). */
    resourceId: text("resource_id").notNull(),
    createdAt: at("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.kind, t.key] })],
);
