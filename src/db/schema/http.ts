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
