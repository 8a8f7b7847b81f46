import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../db/client.js";

/** An outbox-like table: rows wait as `pending` until `next_attempt_at`, and count their attempts. */
export type LeasedTable = PgTable & { id: PgColumn; status: PgColumn; attempts: PgColumn; nextAttemptAt: PgColumn };

/**
 * Claims up to `limit` due rows for `leaseMs`: attempts + 1 and next_attempt_at moved past the lease, in
 * one statement committed before any work. FOR UPDATE SKIP LOCKED lets several processes claim at once
 * without taking one row twice; a process that dies holding a claim lets the lease run out and the row
 * is due again (at least once, never lost).
 */
export async function claimDue<T extends LeasedTable>(db: Db, table: T, { now, leaseMs, limit }: { now: number; leaseMs: number; limit: number }): Promise<T["$inferSelect"][]> {
  const due = db
    .select({ id: table.id })
    .from(table as PgTable)
    .where(and(eq(table.status, "pending"), lte(table.nextAttemptAt, new Date(now))))
    .orderBy(asc(table.nextAttemptAt))
    .limit(limit)
    .for("update", { skipLocked: true });
  const rows = await db
    .update(table as PgTable)
    .set({ attempts: sql`${table.attempts} + 1`, nextAttemptAt: new Date(now + leaseMs) } as never)
    .where(inArray(table.id, due))
    .returning();
  return rows as T["$inferSelect"][];
}
