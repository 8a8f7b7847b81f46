import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Db } from "../db/client.js";
import type { Clock } from "../lib/clock.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { keyedHash } from "../lib/crypto.js";
import { clearStaleKey, completeKey, deleteKey, findKey, reserveKey } from "./idempotency-store.js";

const KEEP_MS = 24 * 60 * 60 * 1000;
/** A `running` reservation older than this belongs to a request that died (crash, kill): it may be taken over. */
const ABANDONED_MS = 60_000;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

declare module "fastify" {
  interface FastifyContextConfig {
    /** This POST creates or charges: it honours Idempotency-Key (CONTRACT §17). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotency?: { scope: string; key: string };
  }
}

function errorReply(reply: FastifyReply, status: number, error: string, code: string) {
  return reply.code(status).send({ error, code });
}

/**
 * Payment-API idempotency keys: the first response for (caller, method and route, key) is kept for
 * 24 hours and replayed; the same key with another body is 422; a repeat while the first still runs
 * is 409. The reservation is a row inserted with ON CONFLICT, so concurrent repeats across
 * processes see exactly one winner. A 5xx is not kept, so the client can retry it.
 */
export function registerIdempotency(app: FastifyInstance, deps: { db: Db; clock: Clock; hashKey: Buffer }): void {
  app.addHook("preHandler", async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.config.idempotent) return;
    const key = request.headers["idempotency-key"];
    if (key === undefined) return;
    if (typeof key !== "string" || !KEY_FORMAT.test(key)) {
      return errorReply(reply, 400, "Idempotency-Key must be 1 to 255 printable characters", "VALIDATION_ERROR");
    }
    const caller = request.rateLimitSubject?.authenticated ? `s:${request.rateLimitSubject.key}` : `a:${request.ip}`;
    const scope = `${caller} ${request.method} ${request.routeOptions.url}`;
    // Keyed: a body holds card numbers, and a plain hash of a card number can be reversed by trying them all.
    const requestHash = keyedHash(canonicalJson(request.body ?? null), deps.hashKey);
    const now = deps.clock.now();

    // Clear an expired or abandoned reservation for this key, then try to reserve it.
    await clearStaleKey(deps.db, { scope, key }, { now, abandonedBefore: now - ABANDONED_MS });
    if (await reserveKey(deps.db, { scope, key, requestHash, createdAt: new Date(now), expiresAt: new Date(now + KEEP_MS) })) {
      request.idempotency = { scope, key };
      return;
    }
    const first = await findKey(deps.db, { scope, key });
    if (!first) return errorReply(reply, 409, "Request in progress", "REQUEST_IN_PROGRESS");
    if (first.requestHash !== requestHash) {
      return errorReply(reply, 422, "Idempotency key reused with different parameters", "IDEMPOTENCY_KEY_REUSED");
    }
    if (first.state === "running") return errorReply(reply, 409, "Request in progress", "REQUEST_IN_PROGRESS");
    reply.code(first.statusCode!).headers(first.responseHeaders ?? {}).header("idempotent-replayed", "true");
    return reply.type("application/json; charset=utf-8").send(first.responseBody);
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const held = request.idempotency;
    if (!held) return payload;
    request.idempotency = undefined;
    if (reply.statusCode >= 500) {
      await deleteKey(deps.db, held);
      return payload;
    }
    const cacheControl = reply.getHeader("cache-control");
    await completeKey(deps.db, held, {
      statusCode: reply.statusCode,
      responseBody: typeof payload === "string" ? payload : String(payload ?? ""),
      responseHeaders: cacheControl ? { "cache-control": String(cacheControl) } : {},
    });
    return payload;
  });
}
