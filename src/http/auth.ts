import { and, eq, isNull } from "drizzle-orm";
import type { FastifyRequest } from "fastify";
import type { Actor, Ctx, Deps } from "../ctx.js";
import type { Db } from "../db/client.js";
import { brands, type OrganizationRole } from "../db/schema/index.js";
import type { SessionView } from "../identity/store.js";
import { AppError, forbidden, unauthorized } from "../lib/errors.js";
import { ANONYMOUS, ctxOf } from "./ctx.js";

// Who is calling, and may they. Routes resolve the caller (callerCtx) and hand the verb its Ctx; the
// verb calls assertRole first, so a verb called from a worker or another route checks the same.

/** One way a request proves who it is; undefined when the request does not carry that proof. */
type CallerResolver = (request: FastifyRequest) => Actor | undefined;

/** The administration session: the cookie was checked by identity/session-hook.ts before rate limiting. */
const sessionCaller: CallerResolver = (request) => (request.adminSession ? actorOfSession(request.adminSession) : undefined);

/**
 * Tried in order; the first that recognises the request names the caller. A resolver reads proof an
 * onRequest hook has already verified (as the session hook does), so resolving stays synchronous.
 * Merchant API keys (`Authorization: Bearer sk_…`, actor type `api`) plug in here from src/http/api-key.ts.
 */
const CALLER_RESOLVERS: readonly CallerResolver[] = [sessionCaller];

export function resolveCaller(request: FastifyRequest): Actor {
  for (const resolve of CALLER_RESOLVERS) {
    const actor = resolve(request);
    if (actor) return actor;
  }
  return ANONYMOUS;
}

/** The verb context of a request, acting as its caller (anonymous when it proves nobody): what a route hands its verb. */
export function callerCtx(deps: Deps, request: FastifyRequest): Ctx {
  return ctxOf(deps, request, resolveCaller(request));
}

/** The session of a request that needs one; 401 `Unauthorized` otherwise (SPEC "Session cookie" 2). `extra` joins the error body. */
export function requireSession(request: FastifyRequest, extra?: Record<string, unknown>): SessionView {
  if (!request.adminSession) throw extra ? new AppError("UNAUTHORIZED", "Unauthorized", undefined, extra) : unauthorized();
  return request.adminSession;
}

/** The verb actor of a session. */
export function actorOfSession(session: SessionView): Actor {
  return {
    type: "user",
    id: session.userId,
    organizationId: session.organizationId ?? undefined,
    brandId: session.brandId ?? undefined,
    role: session.role ?? undefined,
  };
}

/**
 * The tenant a verb acts in: the caller's organization (and brand, when one is selected) and role.
 * Every administration query is scoped by these ids, so another organization's id is a not-found.
 */
export interface CallerScope {
  userId: string;
  organizationId: string;
  brandId: string | null;
  role: OrganizationRole;
}

/** SPEC "Roles": each role holds every right of the roles below it. */
const RANK: Record<OrganizationRole, number> = { member: 0, admin: 1, owner: 2 };

const isOrganizationRole = (role: string | undefined): role is OrganizationRole => role !== undefined && Object.hasOwn(RANK, role);

/**
 * The first line of every administration verb. `least` is the lowest role allowed: "member" (any
 * member), "admin" (admin or owner), "owner". 401 `Unauthorized` for an anonymous caller, 403
 * `NO_ORGANIZATION` for a user without an organization, 403 when the role is below `least` or the
 * caller holds no organization role at all (a salesperson, the system; API keys: see CALLER_RESOLVERS).
 */
export function assertRole(ctx: Pick<Ctx, "actor">, least: OrganizationRole): CallerScope {
  const { actor } = ctx;
  if (actor.type === "anonymous") throw unauthorized();
  if (actor.type !== "user" || !actor.id) throw forbidden("Your role does not allow this");
  if (!actor.organizationId || !isOrganizationRole(actor.role)) throw new AppError("NO_ORGANIZATION", "No organization selected");
  if (RANK[actor.role] < RANK[least]) throw forbidden("Your role does not allow this");
  return { userId: actor.id, organizationId: actor.organizationId, brandId: actor.brandId ?? null, role: actor.role };
}

const noBrandSelected = () => new AppError("NO_BRAND", "No brand selected");

/** The caller's selected brand id without a database check; 400 `No brand selected` when none. */
export function selectedBrand(scope: Pick<CallerScope, "brandId">): string {
  if (!scope.brandId) throw noBrandSelected();
  return scope.brandId;
}

/** The caller's brand, live and of the caller's organization; 400 `No brand selected` otherwise. */
export async function brandOfScope(db: Db, scope: Pick<CallerScope, "organizationId" | "brandId">): Promise<string> {
  const brandId = selectedBrand(scope);
  const [brand] = await db
    .select({ id: brands.id })
    .from(brands)
    .where(and(eq(brands.id, brandId), eq(brands.organizationId, scope.organizationId), isNull(brands.deletedAt)))
    .limit(1);
  if (!brand) throw noBrandSelected();
  return brand.id;
}
