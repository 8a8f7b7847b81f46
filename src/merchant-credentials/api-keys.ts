import { randomInt } from "node:crypto";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { assertRole, brandOfScope, type CallerScope } from "../http/auth.js";
import { bindResource, keyAlreadyUsed, ofBrand, oncePerKey, type EffectOf } from "../http/idempotent-effects.js";
import { API_KEY_SCOPES } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { sha256 } from "../lib/crypto.js";
import { newId } from "../lib/ids.js";
import { CURRENT_API_VERSION } from "./api-version.js";
import { apiKeyNotFound } from "./errors.js";
import { testModeDisabled } from "../providers/registry.js";
import type { ApiKeyIdParams, ApiKeysReply, ApiKeyView, CreateApiKeyBody, CreateApiKeyReply, KeyMode, RevokedReply } from "./schemas.js";
import { insertApiKey, listApiKeysOfBrand, revokeApiKey, type ApiKeyRow } from "./store.js";

type Verb<I> = { ctx: Ctx; input: I };

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** 40 base62 characters ≈ 238 bits: no guessing, and the hash needs no salt or slow KDF. */
const SECRET_LENGTH = 40;
/** `sk_test_`/`sk_live_` and 8 characters: enough to tell keys apart, far too little to help guess one. */
const PREFIX_RANDOM_LENGTH = 8;

/**
 * Issue 33: the secret names its mode (`sk_test_…`, `sk_live_…`) so a developer sees which one is in
 * their config. The stored `livemode` decides, not the text: keys made before modes (`sk_…`) keep the
 * mode migration 0022 gave them.
 */
export function generateApiKeySecret(mode: KeyMode = "test"): string {
  let secret = `sk_${mode}_`;
  for (let i = 0; i < SECRET_LENGTH; i += 1) secret += BASE62[randomInt(BASE62.length)];
  return secret;
}

export const modeOf = (livemode: boolean): KeyMode => (livemode ? "live" : "test");

function viewOf(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    mode: modeOf(row.livemode),
    livemode: row.livemode,
    apiVersion: row.apiVersion,
    createdAt: row.createdAt.getTime(),
    lastUsedAt: row.lastUsedAt?.getTime() ?? null,
  };
}

/** `POST /api/admin/api-keys` (admin, owner): the secret is in this answer only; the table keeps its SHA-256. */
export async function createApiKey({ ctx, input }: Verb<CreateApiKeyBody>): Promise<CreateApiKeyReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  // CONTRACT §39: with PAYMENT_MODE=live there is no test mode, so no key for it.
  if ((input.mode ?? "test") === "test" && ctx.config.paymentMode === "live") throw testModeDisabled();
  // CONTRACT §40: an Idempotency-Key names one key of the brand. Its secret cannot be shown again (the
  // table keeps a hash): a repeat is 409 naming the key, which the caller revokes if the answer was lost.
  const effect = ofBrand(brandId, "api_key");
  return oncePerKey(ctx, effect, {
    answer: async (id) => {
      throw keyAlreadyUsed("API key", id, `its secret was shown once and cannot be shown again; if that answer was lost, revoke the key (DELETE /api/admin/api-keys/${id}) and create another`);
    },
    make: () => makeApiKey(ctx, scope, brandId, input, effect),
  });
}

async function makeApiKey(ctx: Ctx, scope: CallerScope, brandId: string, input: CreateApiKeyBody, effect: EffectOf): Promise<CreateApiKeyReply> {
  const mode = input.mode ?? "test";
  const secret = generateApiKeySecret(mode);
  const row: ApiKeyRow = {
    id: newId("key"),
    organizationId: scope.organizationId,
    brandId,
    name: input.name,
    prefix: secret.slice(0, `sk_${mode}_`.length + PREFIX_RANDOM_LENGTH),
    keyHash: sha256(secret),
    scopes: input.scopes ?? [...API_KEY_SCOPES],
    livemode: mode === "live",
    createdBy: scope.userId,
    createdAt: new Date(ctx.clock.now()),
    lastUsedAt: null,
    revokedAt: null,
    // Pinned for good: a later version never changes what this key's requests get without the header.
    apiVersion: CURRENT_API_VERSION,
  };
  await withTransaction(ctx.db, async (tx) => {
    await bindResource(tx, ctx, effect, row.id);
    await insertApiKey(tx, row);
    await recordAudit(tx, ctx, {
      action: "api_key.create",
      resourceType: "api_key",
      resourceId: row.id,
      success: true,
      brandId,
      details: { name: row.name, prefix: row.prefix, scopes: row.scopes, mode },
    });
  });
  return { success: true, apiKey: viewOf(row), secret };
}

/** `GET /api/admin/api-keys` (any member): the brand's live keys, never a secret or a hash. */
export async function listApiKeys({ ctx }: Omit<Verb<unknown>, "input">): Promise<ApiKeysReply> {
  const scope = assertRole(ctx, "member");
  const brandId = await brandOfScope(ctx.db, scope);
  const rows = await listApiKeysOfBrand(ctx.db, scope.organizationId, brandId);
  return { apiKeys: rows.map(viewOf) };
}

/** `DELETE /api/admin/api-keys/<id>` (admin, owner): refused from the next request on, on every instance (no cache). */
export async function revokeApiKeyOfBrand({ ctx, input }: Verb<ApiKeyIdParams>): Promise<RevokedReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  await withTransaction(ctx.db, async (tx) => {
    const revoked = await revokeApiKey(tx, { id: input.id, organizationId: scope.organizationId, brandId }, new Date(ctx.clock.now()));
    if (!revoked) throw apiKeyNotFound();
    await recordAudit(tx, ctx, { action: "api_key.revoke", resourceType: "api_key", resourceId: revoked.id, success: true, brandId, details: { name: revoked.name, prefix: revoked.prefix } });
  });
  return { success: true };
}
