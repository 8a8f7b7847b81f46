import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, type ErrorCode } from "../lib/errors.js";
import { ProviderError } from "../providers/types.js";
import { ERROR_CODES, isErrorCode } from "./error-codes.js";

export interface ErrorBody {
  error: string;
  code?: ErrorCode;
  details?: string;
  [extra: string]: unknown;
}

/** The page that describes every code (src/http/error-docs.ts). */
export const ERROR_DOCS_PATH = "/docs/errors";

/** Where a code is described: its anchor on the errors page, or the page itself for a code-less (or unknown) error. */
export function errorDocUrl(publicBaseUrl: string, code: unknown): string {
  const page = `${publicBaseUrl}${ERROR_DOCS_PATH}`;
  return typeof code === "string" && isErrorCode(code) ? `${page}#${code}` : page;
}

/**
 * Every error body gets `requestId` (the X-Request-Id of this answer, CONTRACT §18: what a merchant
 * quotes to support) and `docUrl` (what the code means and what to do), after the contract's
 * members, which stay as they were. Done once for every JSON error whoever sends it (the error
 * handler, the not-found handler, rate limit, admission, CSRF, idempotency, readiness), and again on
 * an Idempotency-Key replay of a stored error, which is a new request with its own id.
 */
function linkErrorBody(payload: unknown, request: FastifyRequest, reply: FastifyReply, publicBaseUrl: string): unknown {
  if (reply.statusCode < 400 || typeof payload !== "string" || !String(reply.getHeader("content-type") ?? "").startsWith("application/json")) return payload;
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return payload;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body) || typeof (body as ErrorBody).error !== "string") return payload;
  const linked = body as ErrorBody;
  linked.requestId = request.id;
  linked.docUrl = errorDocUrl(publicBaseUrl, linked.code);
  return JSON.stringify(linked);
}

declare module "fastify" {
  interface FastifyContextConfig {
    /**
     * The `error` text SPEC.md prescribes when required body members are missing on this route
     * (e.g. "Missing token or provider"); applies when one of `fields` (or the whole body) is missing.
     */
    missingFields?: { fields: string[]; message: string };
  }
}

interface AjvIssue {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  /** Set by `propertyNames` on the error of the key that failed (a metadata key too long). */
  propertyName?: string;
}

/** `/customer/email` + missing `email` -> `customer.email`; array indexes stay numeric (`offers.2.price`). */
function dottedPath(issue: AjvIssue): string {
  const segments = issue.instancePath.split("/").filter(Boolean);
  if (issue.keyword === "required" && typeof issue.params.missingProperty === "string") segments.push(issue.params.missingProperty);
  if (issue.keyword === "additionalProperties" && typeof issue.params.additionalProperty === "string") segments.push(issue.params.additionalProperty);
  return segments.map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~")).join(".");
}

function describe(issue: AjvIssue, field: string): string {
  switch (issue.keyword) {
    case "required":
      return `${field} is required`;
    case "enum":
      return `${field} must be one of: ${(issue.params.allowedValues as unknown[]).join(", ")}`;
    case "additionalProperties":
      return `${field} is not allowed`;
    default:
      if (typeof issue.propertyName === "string") return `${field} key "${issue.propertyName.slice(0, 60)}" ${issue.message ?? "is invalid"}`;
      return `${field || "body"} ${issue.message ?? "is invalid"}`;
  }
}

function validationBody(error: FastifyError, request: FastifyRequest): ErrorBody {
  const issue = (error.validation as AjvIssue[])[0];
  const field = dottedPath(issue);
  const missing = request.routeOptions.config.missingFields;
  const bodyMissing = error.validationContext === "body" && (request.body === undefined || request.body === null);
  if (missing && error.validationContext === "body" && (bodyMissing || (issue.keyword === "required" && missing.fields.includes(field)))) {
    return { error: missing.message, code: "VALIDATION_ERROR", details: bodyMissing ? missing.fields.join(", ") : field };
  }
  return { error: `Invalid request: ${describe(issue, field)}`, code: "VALIDATION_ERROR", details: field || error.validationContext };
}

// 57014 and 25P03: our statement and idle-in-transaction timeouts (docs/configuration.md "Database pool").
const CONNECTION_ERRORS = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "57P01", "57P02", "57P03", "08000", "08003", "08006", "57014", "25P03"]);

/** A database that is down or restarting: the request is answered 503, the process carries on. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e = error as { code?: string; message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code && CONNECTION_ERRORS.has(e.code)) return true;
    if (e.message && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(e.message)) return true;
  }
  return false;
}

export function toErrorResponse(error: unknown, request: FastifyRequest): { status: number; body: ErrorBody } {
  // A provider that failed (timeout, 5xx, garbage) where no verb translated it: 502, never its text.
  if (error instanceof ProviderError) {
    request.log.warn({ provider: error.provider, retryable: error.retryable, err: error.message }, "provider call failed");
    return { status: 502, body: { error: `Payment provider ${error.provider} failed`, code: "PROVIDER_ERROR" } };
  }
  if (error instanceof AppError) {
    // The type allows only catalogue codes; a code from outside the types (a cast, JSON) is still a 500.
    if (!isErrorCode(error.code)) {
      request.log.error({ err: error }, "AppError with a code missing from ERROR_CODES");
      return { status: 500, body: { error: "Internal server error", code: "INTERNAL_ERROR" } };
    }
    const status = ERROR_CODES[error.code].status;
    const body: ErrorBody = { error: error.message, code: error.code, ...error.extra };
    if (error.details !== undefined) body.details = error.details;
    return { status, body };
  }
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return { status: 400, body: validationBody(fastifyError, request) };
  switch (fastifyError.code) {
    case "FST_ERR_CTP_INVALID_JSON_BODY":
    case "FST_ERR_CTP_EMPTY_JSON_BODY":
      return { status: 400, body: { error: "Malformed JSON body", code: "INVALID_JSON", details: fastifyError.message } };
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      return { status: 413, body: { error: "Request body too large (limit 1 MiB)", code: "PAYLOAD_TOO_LARGE" } };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return { status: 415, body: { error: "Unsupported content type: send application/json", code: "UNSUPPORTED_MEDIA_TYPE" } };
  }
  if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) {
    return { status: 400, body: { error: "Malformed JSON body", code: "INVALID_JSON" } };
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    return { status, body: { error: fastifyError.message, code: status === 404 ? "NOT_FOUND" : "BAD_REQUEST" } };
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, "database unavailable");
    return { status: 503, body: { error: "Service temporarily unavailable", code: "SERVICE_UNAVAILABLE" } };
  }
  request.log.error({ err: error }, "unhandled error");
  return { status: 500, body: { error: "Internal server error", code: "INTERNAL_ERROR" } };
}

/**
 * Errors Fastify's router answers itself (Fastify's `frameworkErrors` option): a path that is not
 * valid percent-encoded UTF-8 (400) or a parameter over the length limit (414), in the contract's
 * shape instead of Fastify's, which echoes the URL.
 */
export function frameworkErrorRenderer(publicBaseUrl: string) {
  // No hook runs for these answers: the request id header and the body's links are set here.
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
    const text = status === 414 ? "URL too long" : "Invalid URL: not valid percent-encoded UTF-8";
    const body: ErrorBody = { error: text, code: "BAD_REQUEST", details: "url", requestId: request.id, docUrl: errorDocUrl(publicBaseUrl, "BAD_REQUEST") };
    reply.code(status).header("x-request-id", request.id).type("application/json; charset=utf-8").send(body);
  };
}

/**
 * An error answered by a layer around the route (rate limit, admission, CSRF): JSON, whatever the
 * route's own schema for that status is. A demo page documents its 429 as a page, and its serializer
 * turned the rate limit's body into the text "[object Object]" (found by test/http/openapi-responses.test.ts).
 */
export function sendLayerError(reply: FastifyReply, status: number, body: ErrorBody): FastifyReply {
  return reply.code(status).type("application/json; charset=utf-8").serializer(JSON.stringify).send(body);
}

export function registerErrorHandling(app: FastifyInstance, publicBaseUrl: string): void {
  app.addHook("onSend", async (request, reply, payload) => linkErrorBody(payload, request, reply, publicBaseUrl));
  app.setErrorHandler((error, request, reply: FastifyReply) => {
    const { status, body } = toErrorResponse(error, request);
    if (status === 503) reply.header("retry-after", "1");
    return reply.code(status).type("application/json; charset=utf-8").send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    return reply.code(404).send({ error: "Not found", code: "NOT_FOUND", details: `${request.method} ${request.url.split("?")[0]}` });
  });
}
