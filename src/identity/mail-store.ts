import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { mailOutbox } from "../db/schema/index.js";
import { claimDue } from "../jobs/lease.js";

export type MailRow = typeof mailOutbox.$inferSelect;

export async function insertMail(tx: Db, row: typeof mailOutbox.$inferInsert): Promise<void> {
  await tx.insert(mailOutbox).values(row);
}

/** Claims the next due mail for `leaseMs` (FOR UPDATE SKIP LOCKED: several processes never take one twice). */
export async function claimDueMail(db: Db, now: number, leaseMs: number): Promise<MailRow | undefined> {
  const [row] = await claimDue(db, mailOutbox, { now, leaseMs, limit: 1 });
  return row;
}

export async function updateMail(db: Db, id: string, change: Partial<Pick<MailRow, "status" | "sentAt" | "lastError" | "nextAttemptAt">>): Promise<void> {
  await db.update(mailOutbox).set(change).where(eq(mailOutbox.id, id));
}

/**
 * Housekeeping: deletes up to `limit` mails sent (or logged) before `cutoff`. Pending mails are work and
 * failed ones are kept as evidence. Returns how many went.
 */
export async function pruneSentMail(tx: Db, cutoff: number, limit: number): Promise<number> {
  const batch = tx
    .select({ id: mailOutbox.id })
    .from(mailOutbox)
    .where(and(inArray(mailOutbox.status, ["sent", "logged"]), lt(mailOutbox.sentAt, new Date(cutoff))))
    .limit(limit);
  const gone = await tx.delete(mailOutbox).where(inArray(mailOutbox.id, batch)).returning({ one: sql<number>`1` });
  return gone.length;
}
