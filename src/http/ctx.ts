import type { FastifyRequest } from "fastify";
import type { Actor, Ctx, Deps } from "../ctx.js";

/** The actor of a request that proves nobody (src/http/auth.ts resolves the others). */
export const ANONYMOUS: Actor = { type: "anonymous" };

/** The verb context for one request. */
export function ctxOf(deps: Deps, request: FastifyRequest, actor: Actor = ANONYMOUS): Ctx {
  return {
    db: deps.database.db,
    clock: deps.clock,
    log: request.log as Ctx["log"],
    config: deps.config,
    providers: deps.providers,
    orchestration: deps.orchestration,
    actor,
    clientAddress: request.ip,
    userAgent: request.headers["user-agent"],
    requestId: request.id,
    idempotencyKey: request.idempotency && { key: request.idempotency.key, requestHash: request.idempotency.requestHash },
  };
}
