import { randomInt } from "node:crypto";
import { and, count, eq, inArray, isNull } from "drizzle-orm";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { twoFactorRecoveryCodes } from "../db/schema/index.js";
import { keyedHash } from "../lib/crypto.js";

// 2FA recovery codes (issue 18 item 15, docs/identity.md "Recovery codes").

export const RECOVERY_CODE_COUNT = 10;
/** 31 symbols without look-alikes (no 0/o, 1/l/i): 12 of them are about 59 random bits. */
const ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";
const CODE_LENGTH = 12;

/** A TOTP code is six digits; anything else at the 2FA step is tried as a recovery code. */
export const isTotpCode = (token: string) => /^\d{6}$/.test(token.replace(/\s/g, ""));

/** Lower case without spaces or dashes: `ABCD-efgh ijkm` and `abcdefghijkm` are the same code. */
const normalised = (code: string) => code.toLowerCase().replace(/[\s-]/g, "");

/**
 * HMAC-SHA-256 keyed with ENCRYPTION_KEY over user id and code: a stolen table alone cannot test
 * codes offline, and two users' equal codes never collide. Every key of the keyring is tried when
 * checking, so rotating ENCRYPTION_KEY keeps earlier codes usable.
 */
const hashesOf = (ctx: Pick<Ctx, "config">, userId: string, code: string) => ctx.config.encryptionKeyring.map((key) => keyedHash(`${userId}:${normalised(code)}`, key));

function newCode(): string {
  const chars = Array.from({ length: CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join("");
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
}

/** Replaces the user's recovery codes with ten new ones and returns them (the only time they are readable). */
export async function mintRecoveryCodes(tx: Db, ctx: Pick<Ctx, "config" | "clock">, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
  const createdAt = new Date(ctx.clock.now());
  await tx.insert(twoFactorRecoveryCodes).values(codes.map((code) => ({ codeHash: keyedHash(`${userId}:${normalised(code)}`, ctx.config.encryptionKey), userId, createdAt })));
  return codes;
}

/** Uses a recovery code once: a conditional UPDATE, so of two concurrent uses one wins. */
export async function claimRecoveryCode(db: Db, ctx: Pick<Ctx, "config" | "clock">, userId: string, code: string): Promise<boolean> {
  if (normalised(code).length !== CODE_LENGTH) return false;
  const used = await db
    .update(twoFactorRecoveryCodes)
    .set({ usedAt: new Date(ctx.clock.now()) })
    .where(and(eq(twoFactorRecoveryCodes.userId, userId), inArray(twoFactorRecoveryCodes.codeHash, hashesOf(ctx, userId, code)), isNull(twoFactorRecoveryCodes.usedAt)))
    .returning({ codeHash: twoFactorRecoveryCodes.codeHash });
  return used.length === 1;
}

export async function recoveryCodesLeft(db: Db, userId: string): Promise<number> {
  const [row] = await db.select({ left: count() }).from(twoFactorRecoveryCodes).where(and(eq(twoFactorRecoveryCodes.userId, userId), isNull(twoFactorRecoveryCodes.usedAt)));
  return row?.left ?? 0;
}

export async function deleteRecoveryCodes(tx: Db, userId: string): Promise<void> {
  await tx.delete(twoFactorRecoveryCodes).where(eq(twoFactorRecoveryCodes.userId, userId));
}
