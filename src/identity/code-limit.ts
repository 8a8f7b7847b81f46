import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { AppError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { queueMail } from "./mail.js";
import { CODE_FAILURES, CODE_LOCK_MS, CODE_WINDOW_MS } from "./policy.js";
import { countCodeFailures, lockUserForCodeCheck, markAttemptSucceeded, recordLoginAttempt, startCodeLock } from "./store.js";

// The per-user limit on TOTP codes (issue 31 item 7, docs/identity.md "Two-factor code limit"). Each
// check is a row of the failed-login mechanism's `login_attempts` (factor `two_factor`, keyed by the
// user's email) and the lock is `users.totp_locked_until` (login_locks is keyed by email alone). Both
// live in the database every instance shares; no Redis, since the count must be exact and the step
// is rare (each try needs the password first).

export interface CodeOwner {
  id: string;
  email: string;
  name: string;
}

/** TOTP codes of this user are refused for now (a recovery code is not). */
export const codesLocked = (retryAfterSeconds: number) =>
  new AppError("TOO_MANY_LOGIN_ATTEMPTS", "Too many wrong codes: two-factor codes are locked for this account; use a recovery code or try again later", undefined, {
    retryAfter: retryAfterSeconds,
  });

const secondsUntil = (until: Date | null | undefined, now: number) => (until && until.getTime() > now ? Math.ceil((until.getTime() - now) / 1000) : 0);

/**
 * Takes one TOTP check of `user`'s budget before the code is looked at: its id for settleCodeCheck,
 * or the seconds to wait while the user's codes are locked or the budget is spent. Exact under
 * concurrency: one user's reservations queue on the user's row (FOR UPDATE), and each counts the
 * checks before it, those still running included (their rows start as failures), so at most ten
 * wrong codes of a user are ever looked at per window, on any number of instances.
 */
export async function reserveCodeCheck(ctx: Ctx, user: CodeOwner): Promise<{ attemptId: string } | { lockedFor: number }> {
  const now = ctx.clock.now();
  return withTransaction(ctx.db, async (tx) => {
    const locked = secondsUntil((await lockUserForCodeCheck(tx, user.id))?.totpLockedUntil, now);
    if (locked > 0) return { lockedFor: locked };
    // Spent without a lock yet: checks still running (the tenth sets the lock as it ends).
    if ((await countCodeFailures(tx, user.email, new Date(now - CODE_WINDOW_MS))) >= CODE_FAILURES) return { lockedFor: 60 };
    const attemptId = newId("la");
    // No address: the previous release's per-address password counter must not see these rows (the audit record has it).
    await recordLoginAttempt(tx, { id: attemptId, email: user.email, ipAddress: null, success: false, factor: "two_factor", createdAt: new Date(now) });
    return { attemptId };
  });
}

/**
 * Ends a reserved check: `right` no longer counts, `wrong` stays a failure; the one that brings
 * the hour's failures to ten locks TOTP codes for an hour, audited `user.lock` and mailed to the
 * user (through the outbox, in the lock's transaction). Answers whether this call set the lock
 * (the caller wakes the mail job).
 */
export async function settleCodeCheck(ctx: Ctx, user: CodeOwner, attemptId: string, outcome: "right" | "wrong"): Promise<{ locked: boolean }> {
  if (outcome === "right") {
    await markAttemptSucceeded(ctx.db, attemptId);
    return { locked: false };
  }
  const now = ctx.clock.now();
  const failures = await countCodeFailures(ctx.db, user.email, new Date(now - CODE_WINDOW_MS));
  if (failures < CODE_FAILURES) return { locked: false };
  const until = new Date(now + CODE_LOCK_MS);
  return withTransaction(ctx.db, async (tx) => {
    // Of several concurrent checks that see ten failures, one starts the lock; only it mails.
    if (!(await startCodeLock(tx, user.id, until, new Date(now)))) return { locked: false };
    await queueMail(tx, now, {
      to: user.email,
      subject: "Two-factor codes locked on your account",
      text:
        `Hello ${user.name},\n\n${CODE_FAILURES} wrong two-factor codes were entered for your account within ${CODE_WINDOW_MS / 60_000} minutes. ` +
        `Until ${until.toISOString().replace("T", " ").slice(0, 16)} UTC, two-factor codes are refused; one of your recovery codes still signs you in.\n\n` +
        `If this was not you, someone knows your password or holds one of your sessions: tell the owner of your organization.\n`,
    });
    await recordAudit(tx, ctx, { action: "user.lock", resourceType: "user", resourceId: user.id, actorId: null, success: true, details: { factor: "two_factor", failures, lockedMinutes: CODE_LOCK_MS / 60_000 } });
    return { locked: true };
  });
}
