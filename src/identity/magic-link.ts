import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { AppError } from "../lib/errors.js";
import { sha256 } from "../lib/crypto.js";
import { randomToken } from "../lib/ids.js";
import { completeFirstFactor } from "./complete-login.js";
import { queueMail } from "./mail.js";
import { MAGIC_LINK_MAILS, MAGIC_LINK_MS, MAGIC_LINK_WINDOW_MS, TOKEN_BYTES } from "./policy.js";
import { isEmail, normalizeEmail } from "./register.js";
import type { LoginOutcome } from "./sessions.js";
import { consumeMagicLink, countMagicLinksSince, findMagicLink, findUserById, findUserByEmail, insertMagicLink, voidOpenMagicLinks } from "./store.js";

export const MAGIC_LINK_MESSAGE = "If an account exists for this email, a sign-in link has been sent.";

/**
 * `POST /api/auth/magic-link`. The answer is the same whether or not the email is registered
 * (SPEC rule 2); the route also pads the response time. A registered user gets a 256-bit token
 * (stored hashed, 10 minutes, voiding older links) by mail through the outbox, at most 3 mails
 * per address per 15 minutes (CONTRACT §23). Returns whether a mail was queued.
 */
export async function requestMagicLink({ ctx, email: rawEmail }: { ctx: Ctx; email: string }): Promise<{ queued: boolean }> {
  const email = normalizeEmail(rawEmail);
  if (!isEmail(email)) throw new AppError("VALIDATION_ERROR", "Invalid email address", "email");
  const now = ctx.clock.now();
  const user = await findUserByEmail(ctx.db, email);
  return withTransaction(ctx.db, async (tx) => {
    if (!user) {
      await recordAudit(tx, ctx, { action: "magic_link.request", resourceType: "user", resourceId: null, actorId: null, success: false, details: { reason: "unknown_email" } });
      return { queued: false };
    }
    if ((await countMagicLinksSince(tx, user.id, new Date(now - MAGIC_LINK_WINDOW_MS))) >= MAGIC_LINK_MAILS) {
      await recordAudit(tx, ctx, { action: "magic_link.request", resourceType: "user", resourceId: user.id, actorId: user.id, success: false, details: { reason: "mail_limit" } });
      return { queued: false };
    }
    const token = randomToken(TOKEN_BYTES);
    await voidOpenMagicLinks(tx, user.id, new Date(now));
    await insertMagicLink(tx, { tokenHash: sha256(token), userId: user.id, createdAt: new Date(now), expiresAt: new Date(now + MAGIC_LINK_MS) });
    const link = `${ctx.config.publicBaseUrl}/api/auth/magic-link/verify?token=${encodeURIComponent(token)}`;
    await queueMail(tx, now, {
      to: user.email,
      subject: "Your sign-in link",
      text: `Hello ${user.name},\n\nUse this link to sign in. It works once and expires in ${MAGIC_LINK_MS / 60_000} minutes:\n\n${link}\n\nIf you did not ask for it, ignore this mail.\n`,
    });
    await recordAudit(tx, ctx, { action: "magic_link.request", resourceType: "user", resourceId: user.id, actorId: user.id, success: true });
    return { queued: true };
  });
}

export type MagicLinkResult = { ok: true; outcome: LoginOutcome } | { ok: false; error: "invalid_token" | "expired_token" | "no_org" };

const TOKEN_FORMAT = /^[A-Za-z0-9_-]{20,128}$/;

/**
 * `GET /api/auth/magic-link/verify` (SPEC rule 3). Consumes the token atomically (one winner of
 * concurrent verifications); a used or voided token is `invalid_token`; an expired one
 * `expired_token`; a user without organizations `no_org`. A magic link works during a password
 * lock. A 2FA user ends pending.
 */
export async function verifyMagicLink({ ctx, token }: { ctx: Ctx; token: string | undefined }): Promise<MagicLinkResult> {
  if (!token || !TOKEN_FORMAT.test(token)) return { ok: false, error: "invalid_token" };
  const tokenHash = sha256(token);
  const now = new Date(ctx.clock.now());
  const audit = (success: boolean, userId: string | null, reason?: string) =>
    withTransaction(ctx.db, (tx) => recordAudit(tx, ctx, { action: "magic_link.use", resourceType: "user", resourceId: userId, actorId: userId, success, details: reason ? { reason } : undefined }));

  const consumed = await consumeMagicLink(ctx.db, tokenHash, now);
  if (!consumed) {
    const row = await findMagicLink(ctx.db, tokenHash);
    const reason = row && !row.usedAt && !row.voidedAt && row.expiresAt <= now ? "expired_token" : "invalid_token";
    await audit(false, row?.userId ?? null, reason);
    return { ok: false, error: reason };
  }
  const user = await findUserById(ctx.db, consumed.userId);
  if (!user) return { ok: false, error: "invalid_token" };
  try {
    const outcome = await withTransaction(ctx.db, async (tx) => {
      await recordAudit(tx, ctx, { action: "magic_link.use", resourceType: "user", resourceId: user.id, actorId: user.id, success: true });
      return completeFirstFactor(tx, ctx, user, "magic_link");
    });
    return { ok: true, outcome };
  } catch (error) {
    if (error instanceof AppError && error.code === "NO_ORGANIZATION") {
      await audit(false, user.id, "no_org");
      return { ok: false, error: "no_org" };
    }
    throw error;
  }
}
