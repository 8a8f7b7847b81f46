import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import type { Job, JobContext } from "./runner.js";
import { tryTransactionLock } from "./store.js";

export const DAY_MS = 24 * 3_600_000;
/** Rows deleted per statement (and transaction): a large backlog never holds one long transaction. */
export const PRUNE_BATCH = 1_000;
// Any fixed number (the migration lock is 727_272): one instance runs a housekeeping batch at a time.
export const HOUSEKEEPING_LOCK = 727_273;

/**
 * A table that only grows, and how to delete up to `limit` of its rows older than `before` (Unix ms).
 * Each feature owns its prune statement; app.ts lists them (HOUSEKEEPING_PRUNES), so jobs/ knows no feature.
 */
export interface Prune {
  table: string;
  /** Rows older than this are due: "retention" (RETENTION_DAYS), or a fixed age in ms (0 for rows with their own expiry). */
  keep: "retention" | number;
  /** With "retention": never less than this many ms, whatever RETENTION_DAYS says (events: the 30 days the events API promises). */
  keepAtLeast?: number;
  run(tx: Db, before: number, limit: number): Promise<number>;
}

/**
 * One housekeeping pass: every prune, in batches of `batchSize`, each batch its own transaction under
 * an advisory lock. When another instance holds the lock it is running the pass: this one stops (null).
 * Running twice is harmless (each delete only takes rows that are due). Resolves with rows deleted per table.
 */
export async function runHousekeeping(
  db: Db,
  prunes: readonly Prune[],
  { clock, signal, retentionDays, batchSize = PRUNE_BATCH }: Pick<JobContext, "clock" | "signal"> & { retentionDays: number; batchSize?: number },
): Promise<Record<string, number> | null> {
  const now = clock.now();
  const deleted: Record<string, number> = {};
  for (const prune of prunes) {
    deleted[prune.table] = 0;
    const before = now - (prune.keep === "retention" ? Math.max(retentionDays * DAY_MS, prune.keepAtLeast ?? 0) : prune.keep);
    for (;;) {
      if (signal.aborted) return deleted;
      const batch = await withTransaction(db, async (tx) => ((await tryTransactionLock(tx, HOUSEKEEPING_LOCK)) ? prune.run(tx, before, batchSize) : null));
      if (batch === null) return null;
      deleted[prune.table] += batch;
      if (batch < batchSize) break;
    }
  }
  return deleted;
}

/** The runner's `housekeeping` job: a pass every hour in each process (the lock keeps them from overlapping). */
export function housekeepingJob(db: Db, prunes: readonly Prune[], retentionDays: number): Job {
  return {
    name: "housekeeping",
    everyMs: 3_600_000,
    run: async (ctx) => {
      const deleted = await runHousekeeping(db, prunes, { ...ctx, retentionDays });
      if (deleted && Object.values(deleted).some((n) => n > 0)) ctx.log.info({ deleted, retentionDays }, "housekeeping: old rows deleted");
      return false;
    },
  };
}
