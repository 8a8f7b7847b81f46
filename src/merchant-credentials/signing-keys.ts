import { randomBytes } from "node:crypto";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { assertRole, brandOfScope, type CallerScope } from "../http/auth.js";
import { bindResource, keyAlreadyUsed, ofBrand, oncePerKey, type EffectOf } from "../http/idempotent-effects.js";
import { withTransaction } from "../db/transaction.js";
import { seal, unseal } from "../lib/crypto.js";
import { newId } from "../lib/ids.js";
import { validationError } from "../lib/errors.js";
import { testModeDisabled } from "../providers/registry.js";
import { modeOf } from "./api-keys.js";
import { signingKeyNotFound } from "./errors.js";
import type { CreateSigningKeyReply, KeyMode, RevokedReply, SigningKeyParams, SigningKeysReply } from "./schemas.js";
import { findLiveSigningKey, insertSigningKey, listSigningKeysOfBrand, retireSigningKey, touchSigningKey } from "./store.js";

type Verb<I> = { ctx: Ctx; input: I };

/** The optional `{ mode }` body: "test" (default) or "live"; anything else is 400 naming `mode`. */
function modeOfBody(body: unknown): KeyMode {
  const mode = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { mode?: unknown }).mode : undefined;
  if (mode === undefined) return "test";
  if (mode === "test" || mode === "live") return mode;
  throw validationError('Invalid request: mode must be "test" or "live"', "mode");
}

/**
 * `POST /api/admin/signing-keys` (admin, owner): 32 random bytes, base64url, shown once; stored sealed
 * with ENCRYPTION_KEY. Its mode (issue 33) is the mode of every checkout its tokens make.
 */
export async function createSigningKey({ ctx, input }: Verb<unknown>): Promise<CreateSigningKeyReply> {
  const scope = assertRole(ctx, "admin");
  const mode = modeOfBody(input);
  const brandId = await brandOfScope(ctx.db, scope);
  if (mode === "test" && ctx.config.paymentMode === "live") throw testModeDisabled();
  // CONTRACT §40: an Idempotency-Key names one signing key of the brand; its secret is shown once, so a repeat is 409 naming the kid.
  const effect = ofBrand(brandId, "signing_key");
  return oncePerKey(ctx, effect, {
    answer: async (kid) => {
      throw keyAlreadyUsed("signing key", kid, `its secret was shown once and cannot be shown again; if that answer was lost, retire the key (DELETE /api/admin/signing-keys/${kid}) and create another`);
    },
    make: () => makeSigningKey(ctx, scope, brandId, mode, effect),
  });
}

async function makeSigningKey(ctx: Ctx, scope: CallerScope, brandId: string, mode: KeyMode, effect: EffectOf): Promise<CreateSigningKeyReply> {
  const secret = randomBytes(32).toString("base64url");
  const kid = newId("bsk");
  const createdAt = new Date(ctx.clock.now());
  await withTransaction(ctx.db, async (tx) => {
    await bindResource(tx, ctx, effect, kid);
    await insertSigningKey(tx, {
      kid,
      organizationId: scope.organizationId,
      brandId,
      sealedSecret: seal(secret, ctx.config.encryptionKeyring[0]!),
      livemode: mode === "live",
      createdBy: scope.userId,
      createdAt,
    });
    await recordAudit(tx, ctx, { action: "signing_key.create", resourceType: "signing_key", resourceId: kid, success: true, brandId, details: { mode } });
  });
  return { success: true, signingKey: { kid, mode, livemode: mode === "live", createdAt: createdAt.getTime() }, secret };
}

/** `GET /api/admin/signing-keys` (any member): kids and dates, never a secret. */
export async function listSigningKeys({ ctx }: Omit<Verb<unknown>, "input">): Promise<SigningKeysReply> {
  const scope = assertRole(ctx, "member");
  const brandId = await brandOfScope(ctx.db, scope);
  const rows = await listSigningKeysOfBrand(ctx.db, scope.organizationId, brandId);
  return { signingKeys: rows.map((row) => ({ kid: row.kid, mode: modeOf(row.livemode), livemode: row.livemode, createdAt: row.createdAt.getTime(), lastUsedAt: row.lastUsedAt?.getTime() ?? null })) };
}

/** `DELETE /api/admin/signing-keys/<kid>` (admin, owner): tokens naming it are refused from now on. */
export async function retireSigningKeyOfBrand({ ctx, input }: Verb<SigningKeyParams>): Promise<RevokedReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  await withTransaction(ctx.db, async (tx) => {
    const retired = await retireSigningKey(tx, { kid: input.kid, organizationId: scope.organizationId, brandId }, new Date(ctx.clock.now()));
    if (!retired) throw signingKeyNotFound();
    await recordAudit(tx, ctx, { action: "signing_key.retire", resourceType: "signing_key", resourceId: retired.kid, success: true, brandId });
  });
  return { success: true };
}

/**
 * The secret, brand and mode of a live (not retired) signing key, for verifying a token whose header names it; null when
 * the kid is unknown, retired or cannot be opened (ENCRYPTION_KEY changed), which the caller reads as
 * an invalid token. Read per token, never cached, so a retired key stops working on every instance.
 */
export async function brandSigningSecret(ctx: Pick<Ctx, "db" | "config"> & Partial<Pick<Ctx, "log">>, kid: string): Promise<{ brandId: string; secret: string; livemode: boolean } | null> {
  const row = await findLiveSigningKey(ctx.db, kid);
  if (!row) return null;
  let secret: string;
  try {
    secret = unseal(row.sealedSecret, ctx.config.encryptionKeyring);
  } catch {
    ctx.log?.error({ kid }, "signing key cannot be opened (ENCRYPTION_KEY changed?)");
    return null;
  }
  return { brandId: row.brandId, secret, livemode: row.livemode };
}

/** After a token naming `kid` verified: its `lastUsedAt`, at most once a minute. */
export async function markSigningKeyUsed(ctx: Pick<Ctx, "db" | "clock">, kid: string): Promise<void> {
  await touchSigningKey(ctx.db, kid, new Date(ctx.clock.now()));
}
