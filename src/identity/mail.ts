import { eq, sql } from "drizzle-orm";
import nodemailer, { type Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { Db } from "../db/client.js";
import { mailOutbox } from "../db/schema/index.js";
import type { Clock } from "../lib/clock.js";
import { newId } from "../lib/ids.js";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/** Stores a mail in the outbox with the caller's transaction: it exists exactly when the change does. */
export async function queueMail(tx: Db, now: number, mail: OutgoingMail): Promise<string> {
  const id = newId("mail");
  await tx.insert(mailOutbox).values({ id, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html ?? null, status: "pending", nextAttemptAt: new Date(now), createdAt: new Date(now) });
  return id;
}

const MAX_ATTEMPTS = 12;
const LEASE_MS = 5 * 60_000;
const backoffMs = (attempt: number) => Math.min(30_000 * 2 ** (attempt - 1), 3_600_000);

/**
 * Sends due outbox mails through SMTP_URL; without it, writes them to the log (status `logged`),
 * so a developer without a mail server can still follow a magic link. Rows are claimed with
 * FOR UPDATE SKIP LOCKED so several processes never send one mail twice. A failure is retried
 * with exponential back-off (30 s doubling, at most 1 h) up to 12 attempts, then kept as `failed`.
 */
export class MailSender {
  private transport: Transporter | null;
  private running: Promise<void> | null = null;
  constructor(
    private deps: { db: Db; config: Config; clock: Clock; log: Logger },
  ) {
    this.transport = deps.config.smtp.url ? nodemailer.createTransport(deps.config.smtp.url) : null;
  }

  /** Starts a delivery round unless one is running; resolves when it ends. Never throws. */
  kick(): Promise<void> {
    this.running ??= this.deliverDue()
      .catch((err) => this.deps.log.warn({ err }, "mail delivery round failed"))
      .finally(() => (this.running = null));
    return this.running;
  }

  async deliverDue(limit = 20): Promise<void> {
    const { db, clock, log, config } = this.deps;
    for (let i = 0; i < limit; i++) {
      const now = clock.now();
      // Claim one due row with a lease (short transaction; the send happens outside it, so a slow
      // SMTP server never holds a database connection). A process dying mid-send leaves the lease
      // to run out and the mail is retried: at least once, never lost.
      const claimed = await db.execute(sql`
        update mail_outbox set attempts = attempts + 1, next_attempt_at = ${new Date(now + LEASE_MS)}
        where id = (select id from mail_outbox where status = 'pending' and next_attempt_at <= ${new Date(now)}
                    order by next_attempt_at limit 1 for update skip locked)
        returning id, to_address, subject, text_body, html_body, attempts`);
      const row = (claimed as unknown as { rows: Record<string, unknown>[] }).rows[0] as
        | { id: string; to_address: string; subject: string; text_body: string; html_body: string | null; attempts: number }
        | undefined;
      if (!row) return;
      if (!this.transport) {
        log.info({ mailId: row.id, to: row.to_address, subject: row.subject, body: row.text_body }, "mail (SMTP_URL not set: logged, kept in mail_outbox)");
        await db.update(mailOutbox).set({ status: "logged", sentAt: new Date(now) }).where(eq(mailOutbox.id, row.id));
        continue;
      }
      try {
        await this.transport.sendMail({ from: config.smtp.from, to: row.to_address, subject: row.subject, text: row.text_body, html: row.html_body ?? undefined });
        await db.update(mailOutbox).set({ status: "sent", sentAt: new Date(clock.now()), lastError: null }).where(eq(mailOutbox.id, row.id));
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.warn({ mailId: row.id, attempts: row.attempts, err: message }, "mail delivery failed; will retry");
        await db
          .update(mailOutbox)
          .set({ status: row.attempts >= MAX_ATTEMPTS ? "failed" : "pending", lastError: message.slice(0, 500), nextAttemptAt: new Date(clock.now() + backoffMs(row.attempts)) })
          .where(eq(mailOutbox.id, row.id));
      }
    }
  }

  close(): void {
    this.transport?.close();
  }
}

