import nodemailer, { type Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { Db } from "../db/client.js";
import type { Clock } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import type { Job } from "../jobs/runner.js";
import { claimDueMail, insertMail, updateMail } from "./mail-store.js";

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Shown as the sender's name, with MAIL_FROM's address (a receipt: the brand's name). */
  fromName?: string;
  replyTo?: string;
}

/** Stores a mail in the outbox with the caller's transaction: it exists exactly when the change does. */
export async function queueMail(tx: Db, now: number, mail: OutgoingMail): Promise<string> {
  const id = newId("mail");
  await insertMail(tx, { id, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html ?? null, fromName: mail.fromName ?? null, replyTo: mail.replyTo ?? null, status: "pending", nextAttemptAt: new Date(now), createdAt: new Date(now) });
  return id;
}

/** The address of MAIL_FROM, which may be `Name <address>`. */
const addressOf = (from: string) => /<([^>]+)>/.exec(from)?.[1] ?? from.trim();

const MAX_ATTEMPTS = 12;
const LEASE_MS = 5 * 60_000;
/** Mails sent per pass; a full pass asks the runner for another at once. */
const PASS_LIMIT = 20;
const backoffMs = (attempt: number) => Math.min(30_000 * 2 ** (attempt - 1), 3_600_000);

/**
 * Sends due outbox mails through SMTP_URL; without it, marks them `logged` and keeps them in
 * mail_outbox, writing the whole mail to the log only with MAIL_TRANSPORT=log (a developer without
 * a mail server can then follow a magic link; in production the log must not let its readers sign in). Runs as the job runner's `mail`
 * job (every 30 s, and at once when a route queues a mail). Rows are claimed with a lease, so several
 * processes never send one mail twice. A failure is retried with exponential back-off (30 s doubling,
 * at most 1 h) up to 12 attempts, then kept as `failed`.
 */
export class MailSender {
  private transport: Transporter | null;

  readonly job: Job = {
    name: "mail",
    everyMs: 30_000,
    run: ({ signal }) => this.deliverDue(signal),
  };

  constructor(private deps: { db: Db; config: Config; clock: Clock; log: Logger }) {
    this.transport = deps.config.smtp.url && deps.config.smtp.transport === "smtp" ? nodemailer.createTransport(deps.config.smtp.url) : null;
  }

  /** Sends up to PASS_LIMIT due mails, one claim at a time; resolves true when it sent that many (more may wait). */
  async deliverDue(signal: AbortSignal): Promise<boolean> {
    const { db, clock, log, config } = this.deps;
    for (let i = 0; i < PASS_LIMIT; i++) {
      if (signal.aborted) return false;
      const now = clock.now();
      // The send happens outside any transaction, so a slow SMTP server never holds a database
      // connection. A process dying mid-send leaves the lease to run out and the mail is retried:
      // at least once, never lost.
      const row = await claimDueMail(db, now, LEASE_MS);
      if (!row) return false;
      if (!this.transport) {
        // The body carries magic sign-in links: only MAIL_TRANSPORT=log (development) writes it out.
        if (config.smtp.transport === "log") log.info({ mailId: row.id, to: row.to, subject: row.subject, body: row.text }, "mail (MAIL_TRANSPORT=log: logged, kept in mail_outbox)");
        else log.warn({ mailId: row.id, subject: row.subject }, "mail not sent: SMTP_URL is not set (kept in mail_outbox; MAIL_TRANSPORT=log writes mails to the log in development)");
        await updateMail(db, row.id, { status: "logged", sentAt: new Date(now) });
        continue;
      }
      try {
        const from = row.fromName ? { name: row.fromName, address: addressOf(config.smtp.from) } : config.smtp.from;
        await this.transport.sendMail({ from, to: row.to, replyTo: row.replyTo ?? undefined, subject: row.subject, text: row.text, html: row.html ?? undefined });
        await updateMail(db, row.id, { status: "sent", sentAt: new Date(clock.now()), lastError: null });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        log.warn({ mailId: row.id, attempts: row.attempts, err: message }, "mail delivery failed; will retry");
        await updateMail(db, row.id, { status: row.attempts >= MAX_ATTEMPTS ? "failed" : "pending", lastError: message.slice(0, 500), nextAttemptAt: new Date(clock.now() + backoffMs(row.attempts)) });
      }
    }
    return true;
  }

  close(): void {
    this.transport?.close();
  }
}
