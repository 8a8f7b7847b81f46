import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { at } from "./columns.js";

/**
 * Events written in the same transaction as the business change that causes them, so a crash
 * between commit and send loses nothing. The webhook dispatcher fans them out to endpoints.
 */
export const outboxEvents = pgTable(
  "outbox_events",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id").notNull(),
    type: text("type").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    /** The checkout token's `webhookUrl` claim, which receives this event too (CONTRACT §29). */
    webhookUrl: text("webhook_url"),
    checkoutId: text("checkout_id"),
    createdAt: at("created_at").notNull(),
    /** Set once the event has been fanned out to deliveries. */
    dispatchedAt: at("dispatched_at"),
    /** Set once the receipts job handled a buyer-facing event (src/receipts/): mailed, or skipped by the brand's switch. */
    receiptAt: at("receipt_at"),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
    /**
     * Insertion order, from the database (issue 33): the events API orders by (created_at, seq), so two
     * events of one millisecond keep the order they were written in, and a follower reading newer
     * events after one of them never skips the other.
     */
    seq: bigint("seq", { mode: "number" }).notNull().generatedAlwaysAsIdentity(),
  },
  (t) => [
    index("outbox_events_pending_idx").on(t.createdAt).where(sql`dispatched_at is null`),
    // Keep in step with RECEIPT_EVENTS (src/receipts/receipts.ts).
    index("outbox_events_receipt_idx").on(t.createdAt).where(sql`receipt_at is null and type in ('order.confirmed', 'upsell.accepted', 'refund.succeeded')`),
    index("outbox_events_checkout_idx").on(t.checkoutId),
    // The events API (src/webhooks/events.ts): one brand's events of one mode, newest first, by cursor.
    index("outbox_events_brand_mode_created_idx").on(t.brandId, t.livemode, t.createdAt, t.seq),
  ],
);
