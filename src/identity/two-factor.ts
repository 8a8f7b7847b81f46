import { eq } from "drizzle-orm";
import QRCode from "qrcode";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { users } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { decrypt, safeEqual, seal, sha256, UndecryptableSecret } from "../lib/crypto.js";
import { AppError, validationError } from "../lib/errors.js";
import { codesLocked, reserveCodeCheck, settleCodeCheck, type CodeOwner } from "./code-limit.js";
import { invalidCode, missingFields, twoFactorAlreadyEnabled, twoFactorNotEnabled } from "./errors.js";
import { PENDING_LOGIN_MAX_FAILURES } from "./policy.js";
import { initialTenant, issueSession, type IssuedSession } from "./sessions.js";
import { claimTotpStep, countPendingFailure, deletePendingLogin, deleteSession, findPendingLogin, findUserById, type SessionView } from "./store.js";
import { matchTotpStep, newTotpSecret, otpauthUrl } from "./totp.js";
import { claimRecoveryCode, deleteRecoveryCodes, isTotpCode, mintRecoveryCodes, recoveryCodesLeft } from "./two-factor-recovery.js";

/** Wakes the mail job when a check locked the user's codes (its mail is in the outbox already). */
type KickMail = () => unknown;

export type TwoFactorSetup = { enabled: true; recoveryCodesLeft: number } | { enabled: false; secret: string; otpauth_url: string; qrCode: string };

/**
 * `GET /api/auth/2fa/setup`: `enabled: true` with the unused recovery codes, or the pending secret.
 * The pending secret is kept until confirmed or replaced (`renew`, POST): visiting the page again
 * shows the same secret, so a code app scanned earlier stays valid.
 */
export async function setupTwoFactor({ ctx, session, renew = false }: { ctx: Ctx; session: SessionView; renew?: boolean }): Promise<TwoFactorSetup> {
  const user = await findUserById(ctx.db, session.userId);
  if (!user) throw twoFactorNotEnabled();
  if (user.totpEnabled) {
    if (renew) throw twoFactorAlreadyEnabled();
    return { enabled: true, recoveryCodesLeft: await recoveryCodesLeft(ctx.db, user.id) };
  }
  // A pending secret no configured key opens is as good as none: a new one is issued.
  const kept = !renew && user.totpPendingSecretSealed ? openOrNull(user.totpPendingSecretSealed, ctx) : null;
  const secret = kept ?? newTotpSecret();
  if (!kept) {
    await withTransaction(ctx.db, async (tx) => {
      await tx.update(users).set({ totpPendingSecretSealed: seal(secret, ctx.config.encryptionKey), updatedAt: new Date(ctx.clock.now()) }).where(eq(users.id, user.id));
      await recordAudit(tx, ctx, { action: "two_factor.setup", resourceType: "user", resourceId: user.id, success: true, details: { replaced: Boolean(user.totpPendingSecretSealed) } });
    });
  }
  const url = otpauthUrl(secret, user.email);
  return { enabled: false, secret, otpauth_url: url, qrCode: await QRCode.toDataURL(url) };
}

/**
 * `POST /api/auth/2fa/confirm`: enables 2FA when `secret` is the one setup issued and `token` is a
 * valid code for it, and mints the ten recovery codes (answered once). Enabling is a privilege
 * change: the session gets a new id.
 */
export async function confirmTwoFactor({ ctx, session, input }: { ctx: Ctx; session: SessionView; input: { secret: string; token: string } }): Promise<IssuedSession & { recoveryCodes: string[] }> {
  const user = await findUserById(ctx.db, session.userId);
  if (!user) throw twoFactorNotEnabled();
  if (user.totpEnabled) throw twoFactorAlreadyEnabled();
  // A pending secret no configured key opens is as good as none: setup issues a new one.
  const pending = user.totpPendingSecretSealed ? openOrNull(user.totpPendingSecretSealed, ctx) : null;
  if (!pending || !safeEqual(pending, input.secret.trim().toUpperCase())) {
    throw validationError("Secret does not match the one issued by setup; run setup again", "secret");
  }
  const step = matchTotpStep(pending, input.token.trim(), ctx.clock.now());
  if (step === null) {
    await withTransaction(ctx.db, (tx) => recordAudit(tx, ctx, { action: "two_factor.enable", resourceType: "user", resourceId: user.id, success: false }));
    throw invalidCode();
  }
  return withTransaction(ctx.db, async (tx) => {
    await tx
      .update(users)
      .set({ totpEnabled: true, totpSecretSealed: user.totpPendingSecretSealed, totpPendingSecretSealed: null, totpLastStep: step, updatedAt: new Date(ctx.clock.now()) })
      .where(eq(users.id, user.id));
    await deleteSession(tx, session.idHash);
    const issued = await issueSession(tx, ctx, user.id, { organizationId: session.organizationId!, brandId: session.brandId });
    const recoveryCodes = await mintRecoveryCodes(tx, ctx, user.id);
    await recordAudit(tx, ctx, { action: "two_factor.enable", resourceType: "user", resourceId: user.id, success: true, details: { recoveryCodes: recoveryCodes.length } });
    return { ...issued, recoveryCodes };
  });
}

/**
 * `POST /api/auth/2fa/verify`, in CONTRACT §28's order: `Missing fields`; `2FA not enabled` for that
 * userId (unknown ids too); the pending-login cookie, which must exist, be live and belong to
 * userId (else `Invalid code`); the code, accepted once, one step of drift. Five wrong codes end
 * the pending login. A token that is not six digits is tried as a recovery code (used once; a wrong
 * one counts toward the five like a wrong TOTP code). TOTP codes also count toward the user's own
 * limit across logins (code-limit.ts): while it is locked they are refused with 429, unchecked.
 */
export async function verifyTwoFactor({ ctx, pendingId, input, kickMail }: { ctx: Ctx; pendingId: string | undefined; input: { userId?: string; token?: string }; kickMail?: KickMail }): Promise<IssuedSession> {
  const userId = input.userId?.trim();
  const token = input.token?.trim();
  if (!userId || !token) throw missingFields();
  const user = await findUserById(ctx.db, userId);
  if (!user || !user.totpEnabled || !user.totpSecretSealed) throw twoFactorNotEnabled();
  const now = ctx.clock.now();
  const pendingHash = pendingId && pendingId.length <= 128 ? sha256(pendingId) : null;
  const pending = pendingHash ? await findPendingLogin(ctx.db, pendingHash) : undefined;
  const audit = (success: boolean, reason?: string) =>
    withTransaction(ctx.db, (tx) => recordAudit(tx, ctx, { action: "two_factor.verify", resourceType: "user", resourceId: user.id, actorId: user.id, success, details: reason ? { reason } : undefined }));
  if (!pending || pending.userId !== user.id || pending.expiresAt.getTime() <= now || pending.failedAttempts >= PENDING_LOGIN_MAX_FAILURES) {
    await audit(false, "no_pending_login");
    throw invalidCode();
  }

  const check = await checkSecondFactor(ctx, user, user.totpSecretSealed, token, kickMail);
  if (!check.ok && check.reason === "secret_undecryptable") {
    ctx.log.warn({ userId: user.id }, "TOTP secret cannot be decrypted (ENCRYPTION_KEY removed too early?); the user cannot complete a 2FA login");
    await audit(false, check.reason);
    throw secretUndecryptable();
  }
  if (!check.ok && check.reason === "codes_locked") {
    // Not a guess (the code was not looked at): the pending login's five are left alone.
    await audit(false, check.reason);
    throw codesLocked(check.retryAfter);
  }
  if (!check.ok) {
    const failures = await countPendingFailure(ctx.db, pendingHash!);
    if (failures !== undefined && failures >= PENDING_LOGIN_MAX_FAILURES) await deletePendingLogin(ctx.db, pendingHash!);
    await audit(false, check.reason);
    throw invalidCode();
  }
  const secondFactor = check.factor;

  return withTransaction(ctx.db, async (tx) => {
    // One winner: a pending login completes once.
    if (!(await deletePendingLogin(tx, pendingHash!))) throw invalidCode();
    const tenant = await initialTenant(tx, user.id);
    const issued = await issueSession(tx, ctx, user.id, tenant);
    const scoped = { organizationId: tenant.organizationId, brandId: tenant.brandId };
    await recordAudit(tx, ctx, { action: "two_factor.verify", resourceType: "user", resourceId: user.id, actorId: user.id, success: true, ...scoped, details: { secondFactor } });
    if (secondFactor === "recovery_code") {
      const left = await recoveryCodesLeft(tx, user.id);
      await recordAudit(tx, ctx, { action: "two_factor.recovery_code_use", resourceType: "user", resourceId: user.id, actorId: user.id, success: true, ...scoped, details: { recoveryCodesLeft: left } });
    }
    await recordAudit(tx, ctx, { action: "user.login", resourceType: "user", resourceId: user.id, actorId: user.id, success: true, ...scoped, details: { method: pending.method, secondFactor } });
    return issued;
  });
}

type SecondFactorCheck =
  | { ok: true; factor: "totp" | "recovery_code" }
  | { ok: false; reason: "wrong_code" | "code_reused" | "secret_undecryptable" }
  | { ok: false; reason: "codes_locked"; retryAfter: number };

/**
 * A current TOTP code (claimed: each step once) or an unused recovery code (used up here). A TOTP
 * code is checked only within the user's budget (code-limit.ts): every wrong one counts, at any of
 * the 2FA steps; a locked budget answers `codes_locked` without looking at the code. Recovery codes
 * (about 59 random bits each) are outside it, so they work during a lock.
 */
async function checkSecondFactor(ctx: Ctx, user: CodeOwner, secretSealed: string, token: string, kickMail?: KickMail): Promise<SecondFactorCheck> {
  if (!isTotpCode(token)) return (await claimRecoveryCode(ctx.db, ctx, user.id, token)) ? { ok: true, factor: "recovery_code" } : { ok: false, reason: "wrong_code" };
  const secret = openOrNull(secretSealed, ctx);
  if (secret === null) return { ok: false, reason: "secret_undecryptable" };
  const reserved = await reserveCodeCheck(ctx, user);
  if ("lockedFor" in reserved) return { ok: false, reason: "codes_locked", retryAfter: reserved.lockedFor };
  const step = matchTotpStep(secret, token.replace(/\s/g, ""), ctx.clock.now());
  const check: SecondFactorCheck =
    step === null ? { ok: false, reason: "wrong_code" } : (await claimTotpStep(ctx.db, user.id, step)) ? { ok: true, factor: "totp" } : { ok: false, reason: "code_reused" };
  const { locked } = await settleCodeCheck(ctx, user, reserved.attemptId, check.ok ? "right" : "wrong");
  if (locked) void kickMail?.();
  return check;
}

/**
 * A signed-in user's proof for turning 2FA off or renewing recovery codes: `allowRecovery` says
 * whether a recovery code will do. Wrong TOTP codes count toward the user's own limit (the same as
 * at login: per user, whatever organization the session is on), so a stolen session cannot guess
 * its way to turning 2FA off; a locked limit is 429. Failures are audited under `action`.
 */
async function proveSecondFactor(ctx: Ctx, session: SessionView, token: string, action: "two_factor.disable" | "two_factor.recovery_codes_generate", allowRecovery: boolean, kickMail?: KickMail) {
  const user = await findUserById(ctx.db, session.userId);
  if (!user || !user.totpEnabled || !user.totpSecretSealed) throw twoFactorNotEnabled();
  const check = !allowRecovery && !isTotpCode(token) ? ({ ok: false, reason: "wrong_code" } as const) : await checkSecondFactor(ctx, user, user.totpSecretSealed, token.trim(), kickMail);
  if (!check.ok) {
    await withTransaction(ctx.db, (tx) => recordAudit(tx, ctx, { action, resourceType: "user", resourceId: user.id, success: false, details: { reason: check.reason } }));
    if (check.reason === "codes_locked") throw codesLocked(check.retryAfter);
    throw check.reason === "secret_undecryptable" ? secretUndecryptable() : invalidCode();
  }
  return { user, factor: check.factor };
}

/**
 * `POST /api/auth/2fa/disable` (not in SPEC): turns 2FA off with a current TOTP code or a recovery
 * code; the secret, pending secret and recovery codes are deleted.
 */
export async function disableTwoFactor({ ctx, session, input, kickMail }: { ctx: Ctx; session: SessionView; input: { token: string }; kickMail?: KickMail }): Promise<{ success: true }> {
  const { user, factor } = await proveSecondFactor(ctx, session, input.token, "two_factor.disable", true, kickMail);
  await withTransaction(ctx.db, async (tx) => {
    await tx
      .update(users)
      .set({ totpEnabled: false, totpSecretSealed: null, totpPendingSecretSealed: null, totpLastStep: null, updatedAt: new Date(ctx.clock.now()) })
      .where(eq(users.id, user.id));
    await deleteRecoveryCodes(tx, user.id);
    await recordAudit(tx, ctx, { action: "two_factor.disable", resourceType: "user", resourceId: user.id, success: true, details: { secondFactor: factor } });
  });
  return { success: true };
}

/** `POST /api/auth/2fa/recovery-codes` (not in SPEC): ten new recovery codes for a current TOTP code; the old ones stop working. */
export async function regenerateRecoveryCodes({ ctx, session, input, kickMail }: { ctx: Ctx; session: SessionView; input: { token: string }; kickMail?: KickMail }): Promise<{ success: true; recoveryCodes: string[] }> {
  const { user } = await proveSecondFactor(ctx, session, input.token, "two_factor.recovery_codes_generate", false, kickMail);
  const recoveryCodes = await withTransaction(ctx.db, async (tx) => {
    const codes = await mintRecoveryCodes(tx, ctx, user.id);
    await recordAudit(tx, ctx, { action: "two_factor.recovery_codes_generate", resourceType: "user", resourceId: user.id, success: true, details: { recoveryCodes: codes.length } });
    return codes;
  });
  return { success: true, recoveryCodes };
}

const secretUndecryptable = () =>
  new AppError("CONFLICT", "Two-factor secret cannot be decrypted with this server's keys: ask the operator (ENCRYPTION_KEY was changed)");

/** A sealed TOTP secret, or null when no key of ENCRYPTION_KEY / ENCRYPTION_KEY_PREVIOUS opens it. */
function openOrNull(sealed: string, ctx: Pick<Ctx, "config">): string | null {
  try {
    return decrypt(sealed, ctx.config.encryptionKeyring);
  } catch (error) {
    if (error instanceof UndecryptableSecret) return null;
    throw error;
  }
}
