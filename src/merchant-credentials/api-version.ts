import type { FastifyInstance, FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import { AppError } from "../lib/errors.js";

/**
 * The versions of `/api/v1`, oldest first; the last is the current one, which a new key is pinned
 * to. A version is named by the day it was released, and a new one is added only for a breaking
 * change (docs/merchant-api.md "Versions" says which changes are not breaking). The first entry is
 * also the default of `api_keys.api_version` (src/db/schema/merchant-credentials.ts): the version of
 * keys made before there were versions.
 */
export const API_VERSIONS = ["2026-11-28"] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const CURRENT_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1]!;

/** Request and response header; the response's names the version the answer was made with. */
export const VERSION_HEADER = "checkout-version";
const MERCHANT_API = /^\/api\/v1(\/|\?|$)/;

export const isApiVersion = (value: unknown): value is ApiVersion => typeof value === "string" && (API_VERSIONS as readonly string[]).includes(value);

declare module "fastify" {
  interface FastifyRequest {
    /** On `/api/v1`: the version this answer follows (the header's, else the key's pinned one, else the current one). */
    apiVersion?: ApiVersion;
    /** On `/api/v1`: a `Checkout-Version` header naming no version (refused after authentication and rate limiting). */
    unknownApiVersion?: boolean;
  }
}

const unknownVersion = () =>
  new AppError("UNKNOWN_API_VERSION", `Unknown API version: Checkout-Version must be one of ${API_VERSIONS.join(", ")}`, "Checkout-Version");

/**
 * `Checkout-Version` on `/api/v1` (issue 33 item 4). Resolved on every request under `/api/v1`
 * (unknown paths too), after the caller resolvers have looked the API key up and before rate limiting,
 * so every answer, a 401 or a 429 included, carries the `Checkout-Version` it was made with. A header
 * naming no version is refused (400 `UNKNOWN_API_VERSION`) on the route itself, after the key was
 * admitted: a bad key is still 401 and the request still counts against its budget.
 */
export function registerApiVersions(app: FastifyInstance): void {
  app.addHook("onRequest", async (request: FastifyRequest, reply) => {
    if (!MERCHANT_API.test(request.url)) return;
    const asked = request.headers[VERSION_HEADER];
    const key = request.presentedApiKey?.key;
    const pinned = key && !key.revokedAt && isApiVersion(key.apiVersion) ? key.apiVersion : CURRENT_API_VERSION;
    const given = typeof asked === "string" ? asked.trim() : asked;
    if (given !== undefined && !isApiVersion(given)) request.unknownApiVersion = true;
    request.apiVersion = isApiVersion(given) ? given : pinned;
    reply.header(VERSION_HEADER, request.apiVersion);
  });
  const refuseUnknown: onRequestAsyncHookHandler = async (request) => {
    if (request.unknownApiVersion) throw unknownVersion();
  };
  // Route-level onRequest hooks run after every global one (rate limiting) and after the route's key admission.
  app.addHook("onRoute", (route) => {
    if (!MERCHANT_API.test(route.url)) return;
    route.onRequest = [...[route.onRequest ?? []].flat(), refuseUnknown];
  });
}
