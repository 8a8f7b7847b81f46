import type { FastifyRequest } from "fastify";
import type { Actor, Ctx, Deps } from "../ctx.js";
import { ctxOf } from "../http/ctx.js";
import type { OrganizationRole } from "../db/schema/index.js";
import { AppError, forbidden } from "../lib/errors.js";
import { actorOfSession, requireSession } from "../identity/session-hook.js";
import type { SessionView } from "../identity/store.js";

/**
 * The tenant of an administration request: the session's organization (and brand, when one is
 * selected) and the caller's role in it. Every administration query is scoped by these ids, so a
 * route can only reach rows of its own organization; another organization's id is a not-found.
 */
export interface AdminScope {
  session: SessionView;
  actor: Actor;
  userId: string;
  organizationId: string;
  brandId: string | null;
  role: OrganizationRole;
}

/** SPEC "Roles": who may call a route. `session` = any member of the organization. */
export const ROLES = {
  session: ["owner", "admin", "member"],
  adminOrOwner: ["owner", "admin"],
  owner: ["owner"],
} as const satisfies Record<string, readonly OrganizationRole[]>;

/**
 * 401 `Unauthorized` without a session; 403 when the session has no organization or its role is
 * not in `roles`. The one guard every administration route calls first.
 */
export function requireAdmin(request: FastifyRequest, roles: readonly OrganizationRole[] = ROLES.session): AdminScope {
  const session = requireSession(request);
  if (!session.organizationId || !session.role) throw new AppError("NO_ORGANIZATION", "No organization selected");
  if (!roles.includes(session.role)) throw forbidden("Your role does not allow this");
  return {
    session,
    actor: actorOfSession(session),
    userId: session.userId,
    organizationId: session.organizationId,
    brandId: session.brandId,
    role: session.role,
  };
}

/** requireAdmin plus the verb context acting as the session's user: what an administration route hands its verb. */
export function adminRequest(deps: Deps, request: FastifyRequest, roles: readonly OrganizationRole[] = ROLES.session): { scope: AdminScope; ctx: Ctx } {
  const scope = requireAdmin(request, roles);
  return { scope, ctx: ctxOf(deps, request, scope.actor) };
}
