import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Db } from "../db/client.js";
import type { Clock } from "../lib/clock.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { keyedHash } from "../lib/crypto.js";
import type { ErrorCode } from "../lib/errors.js";
import { ERROR_CODES } from "./error-codes.js";
import { clearStaleKey, completeKey, deleteKey, findKey, reserveKey } from "./idempotency-store.js";

const KEEP_MS = 24 * 60 * 60 * 1000;
/** A `running` reservation older than this belongs to a request that died (crash, kill): it may be taken over. */
const ABANDONED_MS = 60_000;
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

declare module "fastify" {
  interface FastifyContextConfig {
    /** This POST creates or charges: it honours Idempotency-Key (CONTRACT §17). */
    idempotent?: boolean;
    /**
     * Its answer shows a secret once (API keys, signing keys, webhook endpoints): never stored here,
     * since secrets never reach a table. A repeat reaches the verb, whose effect row answers 409
     * naming what the key made (idempotent-effects.ts).
     */
    showsSecret?: boolean;
  }
  interface FastifyRequest {
    /** The reserved key and the fingerprint of path parameters and body, which the verb's effect row keeps too (CONTRACT §40). */
    idempotency?: { scope: string; key: string; requestHash: string };
  }
}

function errorReply(reply: FastifyReply, error: string, code: ErrorCode) {
  return reply.code(ERROR_CODES[code].status).send({ error, code });
}

/**
 * Payment-API idempotency keys: the first response for (caller, method and route, key) is kept for
 * 24 hours and replayed; the same key with another body is 422; a repeat while the first still runs
 * is 409. The reservation is a row inserted with ON CONFLICT, so concurrent repeats across
 * processes see exactly one winner. A 5xx is not kept, so the client can retry it; nor is a 202 (a
 * pending refund: the next repeat asks the verb for its state) or a shown-once secret. What a key
 * made is bound for good by the verb itself (idempotent-effects.ts, CONTRACT §40): this reservation
 * is taken over after a minute and gone after a day, the effect row is not.
 */
export function registerIdempotency(app: FastifyInstance, deps: { db: Db; clock: Clock; hashKey: Buffer }): void {
  app.addHook("preHandler", async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.config.idempotent) return;
    const key = request.headers["idempotency-key"];
    if (key === undefined) return;
    if (typeof key !== "string" || !KEY_FORMAT.test(key)) {
      return errorReply(reply, "Idempotency-Key must be 1 to 255 printable characters", "VALIDATION_ERROR");
    }
    const caller = request.rateLimitSubject?.authenticated ? `s:${request.rateLimitSubject.key}` : `a:${request.ip}`;
    const scope = `${caller} ${request.method} ${request.routeOptions.url}`;
    // Keyed: a body holds card numbers, and a plain hash of a card number can be reversed by trying them all.
    // The path parameters too: the same key and body on another order is another request (422), not a replay of the first order's answer.
    const requestHash = keyedHash(canonicalJson({ params: request.params ?? {}, body: request.body ?? null }), deps.hashKey);
    const now = deps.clock.now();

    // Clear an expired or abandoned reservation for this key, then try to reserve it.
    await clearStaleKey(deps.db, { scope, key }, { now, abandonedBefore: now - ABANDONED_MS });
    if (await reserveKey(deps.db, { scope, key, requestHash, createdAt: new Date(now), expiresAt: new Date(now + KEEP_MS) })) {
      request.idempotency = { scope, key, requestHash };
      return;
    }
    const first = await findKey(deps.db, { scope, key });
    if (!first) return errorReply(reply, "Request in progress", "REQUEST_IN_PROGRESS");
    if (first.requestHash !== requestHash) {
      return errorReply(reply, "Idempotency key reused with different parameters", "IDEMPOTENCY_KEY_REUSED");
    }
    if (first.state === "running") return errorReply(reply, "Request in progress", "REQUEST_IN_PROGRESS");
    reply.code(first.statusCode!).headers(first.responseHeaders ?? {}).header("idempotent-replayed", "true");
    return reply.type("application/json; charset=utf-8").send(first.responseBody);
  });

  app.addHook("onSend", async (request, reply, payload) => {
    const held = request.idempotency;
    if (!held) return payload;
    request.idempotency = undefined;
    const kept = reply.statusCode < 500 && reply.statusCode !== 202 && !(request.routeOptions.config.showsSecret && reply.statusCode < 300);
    if (!kept) {
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
