import { and, eq, isNull } from "drizzle-orm";
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import type { Actor, Ctx, Deps } from "../ctx.js";
import type { Db } from "../db/client.js";
import { brands, type ApiKeyScope, type OrganizationRole } from "../db/schema/index.js";
import { AppError, forbidden, unauthorized } from "../lib/errors.js";
import { ANONYMOUS, ctxOf } from "./ctx.js";

// Who is calling, and may they. Every route's caller is resolved once, by the resolver of the proof
// the route takes, and callerCtx hands the verb its Ctx; the verb checks first (assertRole, or an API
// key's scope: merchant-credentials/api-key-caller.ts), so a verb called from a worker or another route checks the same.

/** The proof a route takes of who calls it (CONTRACT §34: a key is never a session, a session never a key). */
export type CallerProof = "session" | "apiKey";

/** An API key acting: its brand is the only brand it may touch (CONTRACT §34). */
export interface ApiActor extends Actor {
  type: "api";
  id: string;
  organizationId: string;
  brandId: string;
  scopes: readonly ApiKeyScope[];
  /** The key's mode (CONTRACT §39): what it makes and sees is live (real money) or test, never both. */
  livemode: boolean;
}

export function isApiActor(actor: Actor): actor is ApiActor {
  return actor.type === "api" && typeof actor.brandId === "string" && Array.isArray(actor.scopes) && typeof (actor as ApiActor).livemode === "boolean";
}

/**
 * One way a request proves who it is. app.ts hands the list to registerCallerResolvers when it builds
 * the app: the administration session (identity/session-caller.ts) and the merchant API key
 * (merchant-credentials/api-key-caller.ts).
 */
export interface CallerResolver {
  readonly proof: CallerProof;
  /**
   * onRequest, before rate limiting (hooks run in registration order): reads the proof the request
   * carries, checks it once and, when it holds, sets the request's rate-limit subject. It may answer
   * the request itself (a session cookie sent cross-site).
   */
  recognise(request: FastifyRequest, reply: FastifyReply): Promise<unknown>;
  /**
   * On a route taking this proof, after rate limiting: the caller the proof names, undefined when the
   * request carries none (401 instead when `required`). A proof that is sent but does not hold is
   * refused here, by the resolver, which records the refusal.
   */
  admit(request: FastifyRequest, required: boolean): Promise<Actor | undefined>;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The proof this route's callers show (default: the session); `required`: 401 before anything else without one. */
    caller?: { proof: CallerProof; required?: boolean };
  }
  interface FastifyRequest {
    /** The caller of this request, admitted by its route's resolver (registerCallerResolvers); anonymous when unset. */
    caller?: Actor;
  }
}

/** The caller of every `/api/v1` route: a merchant API key, 401 before anything else without a valid one; each verb checks its scope. */
export const MERCHANT_API_CALLER = { proof: "apiKey", required: true } as const;
/** The money paths a merchant server calls with its key and a demo order's page without one (CONTRACT §35): a key sent must hold. */
export const OPTIONAL_API_KEY_CALLER = { proof: "apiKey" } as const;

/**
 * Registers the resolvers in order (each one's check before rate limiting, so a valid proof gets its
 * own budget; a later one's subject wins) and gives every route registered after this the admission
 * of its proof as its last onRequest hook: after rate limiting, so refused proofs count against the
 * client address, and before validation and Idempotency-Key.
 */
export function registerCallerResolvers(app: FastifyInstance, resolvers: readonly CallerResolver[]): void {
  for (const resolver of resolvers) app.addHook("onRequest", (request, reply) => resolver.recognise(request, reply));
  const byProof = new Map(resolvers.map((resolver) => [resolver.proof, resolver]));
  app.addHook("onRoute", (route) => {
    const { proof = "session", required = false } = route.config?.caller ?? {};
    const resolver = byProof.get(proof);
    if (!resolver) throw new Error(`${route.method} ${route.url}: no caller resolver for ${proof}`);
    const admit: onRequestAsyncHookHandler = async (request) => {
      request.caller = await resolver.admit(request, required);
    };
    route.onRequest = [...[route.onRequest ?? []].flat(), admit];
  });
}

/** The verb context of a request, acting as its caller (anonymous when it proves nobody): what a route hands its verb. */
export function callerCtx(deps: Deps, request: FastifyRequest): Ctx {
  return ctxOf(deps, request, request.caller ?? ANONYMOUS);
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
 * caller holds no organization role at all (a salesperson, the system, an API key: routes taking a session never admit a key).
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
