import type { FastifyReply, FastifyRequest } from "fastify";
import type { Actor, Deps } from "../ctx.js";
import type { CallerResolver } from "../http/auth.js";
import { sendLayerError } from "../http/errors.js";
import { sha256 } from "../lib/crypto.js";
import { AppError, unauthorized } from "../lib/errors.js";
import { LAST_SEEN_GRANULARITY_MS, SESSION_COOKIE } from "./policy.js";
import { deleteSession, findSession, touchSession, type SessionView } from "./store.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The valid administration session of this request, resolved before rate limiting. */
    adminSession?: SessionView;
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Idle (SESSION_IDLE_MINUTES since last use) or past its absolute end (SESSION_MAX_HOURS). */
export function isSessionOver(session: Pick<SessionView, "lastSeenAt" | "expiresAt">, now: number, idleMinutes: number): boolean {
  return session.expiresAt.getTime() <= now || session.lastSeenAt.getTime() + idleMinutes * 60_000 <= now;
}

/**
 * CSRF defence: an unsafe method carrying the session cookie must come from our own origin,
 * shown by `Origin` equal to PUBLIC_BASE_URL's origin or `Sec-Fetch-Site: same-origin`.
 */
function isSameOrigin(request: FastifyRequest, publicOrigin: string): boolean {
  if (request.headers["sec-fetch-site"] === "same-origin") return true;
  const origin = request.headers.origin;
  return typeof origin === "string" && origin === publicOrigin;
}

/** The rule above, for the API description's session scheme (http/openapi.ts). */
export const SESSION_ORIGIN_RULE =
  "State-changing requests (POST, PUT, PATCH, DELETE) carrying this cookie must also send `Origin` equal to the service's origin (the scheme, host and port of PUBLIC_BASE_URL) or `Sec-Fetch-Site: same-origin`, else 403 CSRF_REJECTED. Browsers send it; a script sets it, e.g. `curl -H 'Origin: https://checkout.example.com'`.";

/** The verb actor of a session. */
function actorOfSession(session: SessionView): Actor {
  return {
    type: "user",
    id: session.userId,
    organizationId: session.organizationId ?? undefined,
    brandId: session.brandId ?? undefined,
    role: session.role ?? undefined,
  };
}

/** The session of a request that needs one; 401 `Unauthorized` otherwise (SPEC "Session cookie" 2). `extra` joins the error body. */
export function requireSession(request: FastifyRequest, extra?: Record<string, unknown>): SessionView {
  if (!request.adminSession) throw extra ? new AppError("UNAUTHORIZED", "Unauthorized", undefined, extra) : unauthorized();
  return request.adminSession;
}

/**
 * The administration session as a caller (http/auth.ts). Its check resolves the cookie into
 * `request.adminSession` and `request.rateLimitSubject` before rate limiting, so sessions get the
 * authenticated limit. Expired sessions are deleted; last-seen is refreshed at most once a minute.
 */
export function sessionCaller(deps: Deps): CallerResolver {
  const publicOrigin = new URL(deps.config.publicBaseUrl).origin;
  // What a script (curl) sending the cookie must do; docs/merchant-api.md "The Origin rule".
  const originRule = `send the header Origin: ${publicOrigin} (the service's public origin) with a request that changes something while signed in, or use an API key on /api/v1`;
  return {
    proof: "session",
    async recognise(request: FastifyRequest, reply: FastifyReply) {
      const raw = request.cookies?.[SESSION_COOKIE];
      if (!raw) return;
      if (!SAFE_METHODS.has(request.method) && !isSameOrigin(request, publicOrigin)) {
        return sendLayerError(reply, 403, { error: "Cross-site request refused", code: "CSRF_REJECTED", details: originRule });
      }
      if (raw.length > 128) return;
      const db = deps.database.db;
      const idHash = sha256(raw);
      const session = await findSession(db, idHash);
      if (!session) return;
      const now = deps.clock.now();
      if (isSessionOver(session, now, deps.config.session.idleMinutes)) {
        await deleteSession(db, idHash);
        return;
      }
      if (now - session.lastSeenAt.getTime() >= LAST_SEEN_GRANULARITY_MS) {
        await touchSession(db, idHash, new Date(now));
        session.lastSeenAt = new Date(now);
      }
      request.adminSession = session;
      request.rateLimitSubject = { key: idHash, authenticated: true, budget: "session" };
    },
    // A session needed by a verb is asked for there (assertRole: 401), after validation.
    async admit(request: FastifyRequest) {
      return request.adminSession ? actorOfSession(request.adminSession) : undefined;
    },
  };
}
