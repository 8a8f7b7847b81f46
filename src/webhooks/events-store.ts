import { and, asc, desc, eq, gte, inArray, lte, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { outboxEvents } from "../db/schema/index.js";

// The events API's queries (src/webhooks/events.ts). Every one is scoped by brand and mode, and by
// the 30 days an event is kept: the index outbox_events_brand_mode_created_idx serves them.

export type EventRow = Pick<typeof outboxEvents.$inferSelect, "id" | "brandId" | "type" | "payload" | "createdAt" | "livemode" | "seq">;

/** Whose events, and the oldest that still exists (the retention cutoff, Unix ms). */
export interface EventScope {
  brandId: string;
  livemode: boolean;
  notBefore: number;
}

export interface EventFilters {
  types?: string[];
  /** Unix ms, inclusive. */
  createdGte?: number;
  createdLte?: number;
}

/** A page boundary: an event of the list (its created_at and seq, the list's order). */
export interface EventCursor {
  createdAt: Date;
  seq: number;
}

const columns = {
  id: outboxEvents.id,
  brandId: outboxEvents.brandId,
  type: outboxEvents.type,
  payload: outboxEvents.payload,
  createdAt: outboxEvents.createdAt,
  livemode: outboxEvents.livemode,
  seq: outboxEvents.seq,
};

const inScope = (scope: EventScope): SQL =>
  and(eq(outboxEvents.brandId, scope.brandId), eq(outboxEvents.livemode, scope.livemode), gte(outboxEvents.createdAt, new Date(scope.notBefore)))!;

/** One event of the scope, or null (unknown, another brand's or mode's, or older than the retention). */
export async function findEvent(db: Db, scope: EventScope, id: string): Promise<EventRow | null> {
  const [row] = await db.select(columns).from(outboxEvents).where(and(eq(outboxEvents.id, id), inScope(scope))).limit(1);
  return row ?? null;
}

/**
 * One page of the scope's events matching `filters`, newest first, `limit + 1` rows (the extra one
 * says there is more). `olderThan` gives the page after that event; `newerThan` the page before it
 * (the `limit` events just newer than it, still newest first). (created_at, id) orders the list
 * totally, so no event is on two pages and none falls between them; events made while a caller
 * pages are newer than its first page and never appear on the later ones.
 */
export function eventPageQuery(db: Db, scope: EventScope, filters: EventFilters, page: { limit: number; olderThan?: EventCursor; newerThan?: EventCursor }) {
  const where = and(
    inScope(scope),
    filters.types && filters.types.length > 0 ? inArray(outboxEvents.type, filters.types) : undefined,
    filters.createdGte !== undefined ? gte(outboxEvents.createdAt, new Date(filters.createdGte)) : undefined,
    filters.createdLte !== undefined ? lte(outboxEvents.createdAt, new Date(filters.createdLte)) : undefined,
    // Row comparisons: the index's last two columns, so the scan starts at the cursor.
    page.olderThan ? sql`(${outboxEvents.createdAt}, ${outboxEvents.seq}) < (${page.olderThan.createdAt.toISOString()}::timestamptz, ${page.olderThan.seq})` : undefined,
    page.newerThan ? sql`(${outboxEvents.createdAt}, ${outboxEvents.seq}) > (${page.newerThan.createdAt.toISOString()}::timestamptz, ${page.newerThan.seq})` : undefined,
  );
  const order = page.newerThan ? [asc(outboxEvents.createdAt), asc(outboxEvents.seq)] : [desc(outboxEvents.createdAt), desc(outboxEvents.seq)];
  return db
    .select(columns)
    .from(outboxEvents)
    .where(where)
    .orderBy(...order)
    .limit(page.limit + 1);
}

/** Writes event rows made by outboxRows (a test event: src/webhooks/events.ts triggerEvent). */
export async function insertEvents(db: Db, rows: (typeof outboxEvents.$inferInsert)[]): Promise<void> {
  await db.insert(outboxEvents).values(rows);
}
