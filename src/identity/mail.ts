import nodemailer, { type Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { Config } from "../config/index.js";
import type { Db } from "../db/client.js";
import type { Clock } from "../lib/clock.js";
import { newId } from "../lib/ids.js";
import type { Job } from "../jobs/runner.js";
import { claimDueMails, insertMails, markMailsLogged, updateMail, type MailRow } from "./mail-store.js";

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
  const [id] = await queueMails(tx, now, [mail]);
  return id!;
}

/** queueMail for several mails, in one statement (the receipts job queues a batch of them). */
export async function queueMails(tx: Db, now: number, mails: OutgoingMail[]): Promise<string[]> {
  const rows = mails.map((mail) => ({
    id: newId("mail"),
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html ?? null,
    fromName: mail.fromName ?? null,
    replyTo: mail.replyTo ?? null,
    status: "pending" as const,
    nextAttemptAt: new Date(now),
    createdAt: new Date(now),
  }));
  await insertMails(tx, rows);
  return rows.map((row) => row.id);
}

/** The address of MAIL_FROM, which may be `Name <address>`. */
const addressOf = (from: string) => /<([^>]+)>/.exec(from)?.[1] ?? from.trim();

const MAX_ATTEMPTS = 12;
const LEASE_MS = 5 * 60_000;
/** Mails claimed (in one statement) and sent per pass; a full pass asks the runner for another at once. */
const PASS_LIMIT = 20;
const backoffMs = (attempt: number) => Math.min(30_000 * 2 ** (attempt - 1), 3_600_000);

/**
 * Sends due outbox mails through SMTP_URL; without it, marks them `logged` and keeps them in
 * mail_outbox, writing the whole mail to the log only with MAIL_TRANSPORT=log (a developer without
 * a mail server can then follow a magic link; in production the log must not let its readers sign in). Runs as the job runner's `mail`
 * job (every 30 s, and at once when a route queues a mail). Rows are claimed with a lease, up to 20
 * in one statement, so several processes never send one mail twice. A failure is retried with exponential back-off (30 s doubling,
 * at most 1 h) up to 12 attempts, then kept as `failed`.
 */
export class MailSender {
  private transport: Transporter | null;

  readonly job: Job = {
    name: "mail",
    everyMs: 30_000,
    run: ({ signal, failed }) => this.deliverDue(signal, failed),
  };

  constructor(private deps: { db: Db; config: Config; clock: Clock; log: Logger }) {
    this.transport = deps.config.smtp.url && deps.config.smtp.transport === "smtp" ? nodemailer.createTransport(deps.config.smtp.url) : null;
  }

  /**
   * Claims due mails, up to PASS_LIMIT in one statement, and sends them one by one, each marked as its
   * send ends (without SMTP_URL: all marked `logged` in one statement). Claims again until a claim
   * finds none (a mail queued during the pass is sent in it) or a full one leaves more; resolves true
   * then. Mails a shutdown leaves unsent wait for their lease to run out, as after a crash.
   */
  async deliverDue(signal: AbortSignal, failed: () => void = () => {}): Promise<boolean> {
    const { db, clock } = this.deps;
    for (;;) {
      if (signal.aborted) return false;
      // The sends happen outside any transaction, so a slow SMTP server never holds a database
      // connection. A process dying mid-send leaves the lease to run out and the mail is retried:
      // at least once, never lost. Oldest first, as queued (RETURNING has no order).
      const rows = (await claimDueMails(db, clock.now(), LEASE_MS, PASS_LIMIT)).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
      if (rows.length === 0) return false;
      if (!(await this.deliver(rows, signal, failed))) return false;
      if (rows.length === PASS_LIMIT) return true;
    }
  }

  /** Sends (or logs) claimed mails; false when a shutdown stopped it. */
  private async deliver(rows: MailRow[], signal: AbortSignal, failed: () => void): Promise<boolean> {
    const { db, clock, log, config } = this.deps;
    if (!this.transport) {
      for (const row of rows) {
        // The body carries magic sign-in links: only MAIL_TRANSPORT=log (development) writes it out.
        if (config.smtp.transport === "log") log.info({ mailId: row.id, to: row.to, subject: row.subject, body: row.text }, "mail (MAIL_TRANSPORT=log: logged, kept in mail_outbox)");
        else log.warn({ mailId: row.id, subject: row.subject }, "mail not sent: SMTP_URL is not set (kept in mail_outbox; MAIL_TRANSPORT=log writes mails to the log in development)");
      }
      await markMailsLogged(db, rows.map((row) => row.id), new Date(clock.now()));
      return true;
    }
    for (const row of rows) {
      if (signal.aborted) return false;
      try {
        const from = row.fromName ? { name: row.fromName, address: addressOf(config.smtp.from) } : config.smtp.from;
        await this.transport.sendMail({ from, to: row.to, replyTo: row.replyTo ?? undefined, subject: row.subject, text: row.text, html: row.html ?? undefined });
        await updateMail(db, row.id, { status: "sent", sentAt: new Date(clock.now()), lastError: null });
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        failed(); // background_job_failures_total{name="mail",kind="item"}: an unreachable SMTP_URL shows there
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
