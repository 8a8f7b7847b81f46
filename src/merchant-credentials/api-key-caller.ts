import type { FastifyRequest } from "fastify";
import { recordAudit } from "../audit/record.js";
import type { Ctx, Deps } from "../ctx.js";
import type { ApiKeyScope } from "../db/schema/index.js";
import { isApiActor, type ApiActor, type CallerResolver } from "../http/auth.js";
import { ctxOf } from "../http/ctx.js";
import { sha256 } from "../lib/crypto.js";
import { apiKeyRequired, invalidApiKey, missingScope, testKeyRefused } from "./errors.js";
import { findApiKeyByHash, touchApiKey, type ApiKeyRow } from "./store.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The key a well-formed `Authorization: Bearer sk_…` names (null: none), looked up once, before rate limiting. */
    presentedApiKey?: PresentedKey;
  }
}

// `sk_`, `sk_test_` or `sk_live_` and 32 or more base62 characters; anything else is malformed before any lookup.
const BEARER = /^Bearer (sk_(?:test_|live_)?[0-9A-Za-z]{32,128})$/;

/** A lookup of a presented secret by its hash: the row, or null when no key has that hash. */
interface PresentedKey {
  secretHash: string;
  key: ApiKeyRow | null;
}

type RefusalReason = "malformed" | "unknown" | "revoked" | "missing_scope" | "other_brand" | "test_mode_disabled" | "other_mode";
type KeyCtx = Pick<Ctx, "db" | "clock" | "actor" | "clientAddress" | "userAgent" | "config">;

/** `api_key.refused`, with the reason; never the presented secret nor its hash. */
export async function recordApiKeyRefusal(ctx: KeyCtx, reason: RefusalReason, key?: { id: string; organizationId: string; brandId: string }, details?: Record<string, unknown>): Promise<void> {
  await recordAudit(ctx.db, ctx, {
    action: "api_key.refused",
    resourceType: "api_key",
    resourceId: key?.id ?? null,
    success: false,
    actorType: "api",
    actorId: key?.id ?? null,
    organizationId: key?.organizationId ?? null,
    brandId: key?.brandId ?? null,
    details: { reason, ...details },
  });
}

/** The key row of a presented secret: the request's earlier lookup when it was of the same secret, else a new one. */
async function lookUpKey(db: KeyCtx["db"], secret: string, earlier?: PresentedKey): Promise<PresentedKey> {
  const secretHash = sha256(secret);
  if (earlier?.secretHash === secretHash) return earlier;
  return { secretHash, key: await findApiKeyByHash(db, secretHash) };
}

/**
 * The actor of an `Authorization` header: `Bearer sk_…` looked up by its SHA-256 on a unique index,
 * on every request (no cache, so a revocation holds on every instance at once; `earlier` is this
 * request's own lookup from the check before rate limiting). A malformed, unknown or revoked key is
 * 401 `Invalid API key`, recorded as `api_key.refused`. `lastUsedAt` moves at most once a minute (a
 * conditional UPDATE).
 */
async function authenticateApiKey(ctx: KeyCtx, authorization: string, earlier?: PresentedKey): Promise<ApiActor> {
  const secret = BEARER.exec(authorization)?.[1];
  if (!secret) {
    await recordApiKeyRefusal(ctx, "malformed");
    throw invalidApiKey();
  }
  const { key } = await lookUpKey(ctx.db, secret, earlier);
  if (!key || key.revokedAt) {
    await recordApiKeyRefusal(ctx, key ? "revoked" : "unknown", key ?? undefined);
    throw invalidApiKey();
  }
  // CONTRACT §39: PAYMENT_MODE=live refuses test mode altogether; the text says why, the key is no secret to its owner.
  if (!key.livemode && ctx.config.paymentMode === "live") {
    await recordApiKeyRefusal(ctx, "test_mode_disabled", key);
    throw testKeyRefused();
  }
  await touchApiKey(ctx.db, key.id, new Date(ctx.clock.now()));
  return { type: "api", id: key.id, organizationId: key.organizationId, brandId: key.brandId, scopes: key.scopes, livemode: key.livemode };
}

/**
 * The merchant API key as a caller (http/auth.ts), on the routes that take one: `/api/v1` (required)
 * and the money paths where a key is optional (get-payment-token, create-session, process-upsell:
 * the verb decides whether anonymous is enough, CONTRACT §35).
 *
 * Its check (CONTRACT §41, issue 31 item 8) runs before rate limiting and after the session's, so a
 * valid key is counted against its own budget (RATE_LIMIT_API_KEY), not its client address, and wins
 * over a cookie. A malformed, unknown or revoked key leaves the request anonymous there: it counts
 * against the address, and is refused (and audited) only on a route taking a key, with that lookup
 * (one query per request). Without an `Authorization` header such a route's caller is anonymous, or
 * 401 `API key required` when the route requires a key. The key also becomes the caller of
 * Idempotency-Key (src/http/idempotency.ts scopes keys by `rateLimitSubject`), so two merchants never
 * share a key space.
 */
export function apiKeyCaller(deps: Deps): CallerResolver {
  return {
    proof: "apiKey",
    async recognise(request: FastifyRequest) {
      const authorization = request.headers.authorization;
      const secret = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
      if (!secret) return;
      request.presentedApiKey = await lookUpKey(deps.database.db, secret);
      const key = request.presentedApiKey.key;
      if (key && !key.revokedAt) request.rateLimitSubject = { key: `api:${key.id}`, authenticated: true, budget: "apiKey" };
    },
    async admit(request: FastifyRequest, required: boolean) {
      const authorization = request.headers.authorization;
      if (authorization === undefined) {
        if (required) throw apiKeyRequired();
        return undefined;
      }
      return authenticateApiKey(ctxOf(deps, request), authorization, request.presentedApiKey);
    },
  };
}

/**
 * The first line of every `/api/v1` verb, as assertRole is of every administration verb: the caller
 * is an API key (401 `API key required` otherwise) holding one of `scopes`, else 403 `API key lacks
 * scope <scope>` (the first is named), recorded as `api_key.refused`. Returns the key, whose brand is
 * the only brand the verb may touch.
 */
export async function assertScope(ctx: KeyCtx, ...scopes: [ApiKeyScope, ...ApiKeyScope[]]): Promise<ApiActor> {
  const actor = ctx.actor;
  if (!isApiActor(actor)) throw apiKeyRequired();
  if (scopes.some((scope) => actor.scopes.includes(scope))) return actor;
  await recordApiKeyRefusal(ctx, "missing_scope", actor, { scope: scopes[0] });
  throw missingScope(scopes[0]);
}
