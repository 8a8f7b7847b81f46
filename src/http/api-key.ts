import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { recordAudit } from "../audit/record.js";
import type { Actor, Ctx, Deps } from "../ctx.js";
import type { ApiKeyScope } from "../db/schema/index.js";
import { sha256 } from "../lib/crypto.js";
import { apiKeyRequired, invalidApiKey, missingScope } from "../merchant-credentials/errors.js";
import { findApiKeyByHash, touchApiKey, type ApiKeyRow } from "../merchant-credentials/store.js";
import { ctxOf } from "./ctx.js";

/** An API key acting: its brand is the only brand it may touch (CONTRACT §34). */
export interface ApiActor extends Actor {
  type: "api";
  id: string;
  organizationId: string;
  brandId: string;
  scopes: readonly ApiKeyScope[];
}

declare module "fastify" {
  interface FastifyRequest {
    /** The API key of a `/api/v1` request, set by requireApiKey. */
    apiActor?: ApiActor;
    /** The key a well-formed `Authorization: Bearer sk_…` names (null: none), looked up once, before rate limiting. */
    presentedApiKey?: PresentedKey;
  }
}

// `sk_` and 32 or more base62 characters; anything else is malformed before any lookup.
const BEARER = /^Bearer (sk_[0-9A-Za-z]{32,128})$/;

/** A lookup of a presented secret by its hash: the row, or null when no key has that hash. */
interface PresentedKey {
  secretHash: string;
  key: ApiKeyRow | null;
}

type RefusalReason = "malformed" | "unknown" | "revoked" | "missing_scope" | "other_brand";
type KeyCtx = Pick<Ctx, "db" | "clock" | "actor" | "clientAddress" | "userAgent">;

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
 * CONTRACT §41 (issue 31 item 8): a request with a valid key is counted against the key's own budget
 * (RATE_LIMIT_API_KEY), not its client address, so this runs before registerRateLimit (hooks run in
 * registration order) and after the session hook (a key wins over a cookie). A malformed, unknown or
 * revoked key leaves the request anonymous: it counts against the address. Nothing is refused or
 * audited here; the route's guard does that with this lookup (one query per request).
 */
export function registerApiKeyResolution(app: FastifyInstance, deps: Pick<Deps, "database">): void {
  app.addHook("onRequest", async (request: FastifyRequest) => {
    const authorization = request.headers.authorization;
    const secret = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
    if (!secret) return;
    request.presentedApiKey = await lookUpKey(deps.database.db, secret);
    const key = request.presentedApiKey.key;
    if (key && !key.revokedAt) request.rateLimitSubject = { key: `api:${key.id}`, authenticated: true, budget: "apiKey" };
  });
}

/**
 * The actor of an `Authorization` header: `Bearer sk_…` looked up by its SHA-256 on a unique index,
 * on every request (no cache, so a revocation holds on every instance at once; `earlier` is this
 * request's own lookup from registerApiKeyResolution). A malformed, unknown or revoked key is 401
 * `Invalid API key`, recorded as `api_key.refused`. `lastUsedAt` moves at most once a minute (a
 * conditional UPDATE).
 */
export async function authenticateApiKey(ctx: KeyCtx, authorization: string, earlier?: PresentedKey): Promise<ApiActor> {
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
  await touchApiKey(ctx.db, key.id, new Date(ctx.clock.now()));
  return { type: "api", id: key.id, organizationId: key.organizationId, brandId: key.brandId, scopes: key.scopes };
}

export function isApiActor(actor: Actor): actor is ApiActor {
  return actor.type === "api" && typeof actor.brandId === "string" && Array.isArray(actor.scopes);
}

/** 403 `API key lacks scope <scope>` unless the key holds one of `scopes` (the first is named). */
export async function assertApiKeyScope(ctx: KeyCtx, actor: ApiActor, scopes: readonly ApiKeyScope[]): Promise<void> {
  if (scopes.some((scope) => actor.scopes.includes(scope))) return;
  await recordApiKeyRefusal(ctx, "missing_scope", actor, { scope: scopes[0] });
  throw missingScope(scopes[0]!);
}

/**
 * Route guard of `/api/v1` (onRequest): a Bearer key holding one of `scopes`, else 401/403. A
 * session cookie is no key (CONTRACT §34). The key also becomes the caller of Idempotency-Key
 * (src/http/idempotency.ts scopes keys by `rateLimitSubject`), so two merchants never share a key space.
 */
export function requireApiKey(deps: Deps, scopes: readonly ApiKeyScope[]) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const authorization = request.headers.authorization;
    if (authorization === undefined) throw apiKeyRequired();
    const ctx = ctxOf(deps, request);
    const actor = await authenticateApiKey(ctx, authorization, request.presentedApiKey);
    await assertApiKeyScope(ctx, actor, scopes);
    request.apiActor = actor;
  };
}

/**
 * The verb context of a money path that takes an optional key (get-payment-token, create-session,
 * process-upsell): acting as the key when an Authorization header is sent (401 when it is not a
 * valid key), anonymous otherwise; the verb decides whether anonymous is enough (CONTRACT §35).
 */
export async function ctxWithOptionalApiKey(deps: Deps, request: FastifyRequest): Promise<Ctx> {
  const authorization = request.headers.authorization;
  if (authorization === undefined) return ctxOf(deps, request);
  const actor = await authenticateApiKey(ctxOf(deps, request), authorization, request.presentedApiKey);
  return ctxOf(deps, request, actor);
}

/** The verb context of a `/api/v1` route: the key requireApiKey resolved. */
export function apiCtxOf(deps: Deps, request: FastifyRequest): Ctx {
  if (!request.apiActor) throw apiKeyRequired();
  return ctxOf(deps, request, request.apiActor);
}
