import { eq } from "drizzle-orm";
import QRCode from "qrcode";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { users } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { decrypt, safeEqual, seal, sha256, UndecryptableSecret } from "../lib/crypto.js";
import { AppError, validationError } from "../lib/errors.js";
import { invalidCode, missingFields, twoFactorAlreadyEnabled, twoFactorNotEnabled } from "./errors.js";
import { PENDING_LOGIN_MAX_FAILURES } from "./policy.js";
import { initialTenant, issueSession, type IssuedSession } from "./sessions.js";
import { claimTotpStep, countPendingFailure, deletePendingLogin, deleteSession, findPendingLogin, findUserById, type SessionView } from "./store.js";
import { matchTotpStep, newTotpSecret, otpauthUrl } from "./totp.js";

export type TwoFactorSetup = { enabled: true } | { enabled: false; secret: string; otpauth_url: string; qrCode: string };

/** `GET /api/auth/2fa/setup`: a new secret (kept sealed until confirm) or `enabled: true`. */
export async function setupTwoFactor({ ctx, session }: { ctx: Ctx; session: SessionView }): Promise<TwoFactorSetup> {
  const user = await findUserById(ctx.db, session.userId);
  if (!user) throw twoFactorNotEnabled();
  if (user.totpEnabled) return { enabled: true };
  const secret = newTotpSecret();
  const url = otpauthUrl(secret, user.email);
  await withTransaction(ctx.db, async (tx) => {
    await tx.update(users).set({ totpPendingSecretSealed: seal(secret, ctx.config.encryptionKey), updatedAt: new Date(ctx.clock.now()) }).where(eq(users.id, user.id));
    await recordAudit(tx, ctx, { action: "two_factor.setup", resourceType: "user", resourceId: user.id, success: true });
  });
  return { enabled: false, secret, otpauth_url: url, qrCode: await QRCode.toDataURL(url) };
}

/**
 * `POST /api/auth/2fa/confirm`: enables 2FA when `secret` is the one setup issued and `token` is a
 * valid code for it. Enabling is a privilege change: the session gets a new id.
 */
export async function confirmTwoFactor({ ctx, session, input }: { ctx: Ctx; session: SessionView; input: { secret: string; token: string } }): Promise<IssuedSession> {
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
    await recordAudit(tx, ctx, { action: "two_factor.enable", resourceType: "user", resourceId: user.id, success: true });
    return issued;
  });
}

/**
 * `POST /api/auth/2fa/verify`, in CONTRACT §28's order: `Missing fields`; `2FA not enabled` for that
 * userId (unknown ids too); the pending-login cookie, which must exist, be live and belong to
 * userId (else `Invalid code`); the code, accepted once, one step of drift. Five wrong codes end
 * the pending login.
 */
export async function verifyTwoFactor({ ctx, pendingId, input }: { ctx: Ctx; pendingId: string | undefined; input: { userId?: string; token?: string } }): Promise<IssuedSession> {
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

  const secret = openOrNull(user.totpSecretSealed, ctx);
  if (secret === null) {
    ctx.log.warn({ userId: user.id }, "TOTP secret cannot be decrypted (ENCRYPTION_KEY removed too early?); the user cannot complete a 2FA login");
    await audit(false, "secret_undecryptable");
    throw new AppError("CONFLICT", "Two-factor secret cannot be decrypted with this server's keys: ask the operator (ENCRYPTION_KEY was changed)");
  }
  const step = matchTotpStep(secret, token, now);
  const claimed = step !== null && (await claimTotpStep(ctx.db, user.id, step));
  if (!claimed) {
    const failures = await countPendingFailure(ctx.db, pendingHash!);
    if (failures !== undefined && failures >= PENDING_LOGIN_MAX_FAILURES) await deletePendingLogin(ctx.db, pendingHash!);
    await audit(false, step === null ? "wrong_code" : "code_reused");
    throw invalidCode();
  }

  return withTransaction(ctx.db, async (tx) => {
    // One winner: a pending login completes once.
    if (!(await deletePendingLogin(tx, pendingHash!))) throw invalidCode();
    const tenant = await initialTenant(tx, user.id);
    const issued = await issueSession(tx, ctx, user.id, tenant);
    const scoped = { organizationId: tenant.organizationId, brandId: tenant.brandId };
    await recordAudit(tx, ctx, { action: "two_factor.verify", resourceType: "user", resourceId: user.id, actorId: user.id, success: true, ...scoped });
    await recordAudit(tx, ctx, { action: "user.login", resourceType: "user", resourceId: user.id, actorId: user.id, success: true, ...scoped, details: { method: pending.method, secondFactor: "totp" } });
    return issued;
  });
}

/** A sealed TOTP secret, or null when no key of ENCRYPTION_KEY / ENCRYPTION_KEY_PREVIOUS opens it. */
function openOrNull(sealed: string, ctx: Pick<Ctx, "config">): string | null {
  try {
    return decrypt(sealed, ctx.config.encryptionKeyring);
  } catch (error) {
    if (error instanceof UndecryptableSecret) return null;
    throw error;
  }
}
