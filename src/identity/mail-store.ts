import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { mailOutbox } from "../db/schema/index.js";
import { claimDue } from "../jobs/lease.js";

export type MailRow = typeof mailOutbox.$inferSelect;

export async function insertMails(tx: Db, rows: (typeof mailOutbox.$inferInsert)[]): Promise<void> {
  if (rows.length > 0) await tx.insert(mailOutbox).values(rows);
}

/** Claims up to `limit` due mails for `leaseMs` (FOR UPDATE SKIP LOCKED: several processes never take one twice). */
export async function claimDueMails(db: Db, now: number, leaseMs: number, limit: number): Promise<MailRow[]> {
  return claimDue(db, mailOutbox, { now, leaseMs, limit });
}

export async function updateMail(db: Db, id: string, change: Partial<Pick<MailRow, "status" | "sentAt" | "lastError" | "nextAttemptAt">>): Promise<void> {
  await db.update(mailOutbox).set(change).where(eq(mailOutbox.id, id));
}

/** Marks claimed mails `logged` (kept, not sent: no SMTP_URL), in one statement. */
export async function markMailsLogged(db: Db, ids: string[], at: Date): Promise<void> {
  if (ids.length > 0) await db.update(mailOutbox).set({ status: "logged", sentAt: at }).where(inArray(mailOutbox.id, ids));
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
