import type { Db } from "../db/client.js";
import { outboxEvents } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";

/** SPEC.md "Events": the events endpoints can subscribe to (`availableEvents`). */
export const EVENT_TYPES = [
  "checkout.created",
  "checkout.completed",
  "payment.succeeded",
  "payment.failed",
  "order.confirmed",
  "upsell.accepted",
  "upsell.declined",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface NewEvent {
  brandId: string;
  type: EventType;
  data: Record<string, unknown>;
  checkoutId?: string | null;
  /** The checkout token's webhookUrl claim (CONTRACT §29). */
  webhookUrl?: string | null;
}

/** Outbox rows for events: for enqueueEvents, and for hot statements that insert them themselves. */
export function outboxRows(now: number, events: NewEvent[]): (typeof outboxEvents.$inferInsert)[] {
  const createdAt = new Date(now);
  return events.map((e) => ({
    id: newId("evt"),
    brandId: e.brandId,
    type: e.type,
    payload: e.data,
    checkoutId: e.checkoutId ?? null,
    webhookUrl: e.webhookUrl ?? null,
    createdAt,
  }));
}

/**
 * Writes events to the outbox. Call it with the transaction of the business change, so the events
 * exist exactly when the change does (ARCHITECTURE "Transactions and the outbox").
 */
export async function enqueueEvents(tx: Db, now: number, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx.insert(outboxEvents).values(outboxRows(now, events));
}
