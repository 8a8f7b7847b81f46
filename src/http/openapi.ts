import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import type { FastifyInstance, RouteOptions } from "fastify";
import { AdmissionControl } from "./admission.js";
import { isRateLimited } from "./rate-limit.js";

// The API description (/openapi.json, issue 33 item 5): generated from the routes' TypeBox schemas,
// completed here for every route at once, so a route added later gets the same: an operationId from
// its method and path, its security from its caller (http/auth.ts) or its path, and the statuses the
// cross-cutting layers answer on it (body limit, media type, CSRF, rate limit, admission).
// `npx redocly lint` with the recommended rules passes on it (test/http/openapi-lint.unit.test.ts).

/** A cookie that proves a session, and the paths whose routes (taking the session proof) need it. */
export interface SessionCookie {
  /** The security scheme's name in the document. */
  scheme: string;
  cookie: string;
  description: string;
  /** Path prefixes whose session-proof routes require this cookie (a route's own `security` wins). */
  under: readonly string[];
}

export interface ApiDescriptionOptions {
  publicBaseUrl: string;
  sessionCookies: readonly SessionCookie[];
  /** Other cookie-borne schemes routes name in their own `security` (the pending sign-in). */
  otherCookies?: readonly Omit<SessionCookie, "under">[];
  /** OpenAPI 3.1 `webhooks`: what the service sends to merchants' endpoints (the events' schemas). */
  webhooks?: Record<string, unknown>;
}

type Json = Record<string, any>;
type Security = Record<string, string[]>[];

export const MERCHANT_API_KEY_SCHEME = "merchantApiKey";
/** The name the error body's schema has in `components.schemas` (its `$id`, http/schemas.ts). */
const ERROR_BODY_REF = "#/components/schemas/ErrorBody";
const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const errorBody = () => ({ $ref: "ErrorBody#" });
const LAYER_STATUSES = "x-layer-statuses";

/** `GET /api/v1/orders/:orderId/refunds` -> `getApiV1OrdersByOrderIdRefunds`: stable, and unique as method and path are. */
export function operationIdOf(method: string, url: string): string {
  const words = url
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      const param = /^[:{]([^}]+)\}?$/.exec(segment);
      if (param) return `By ${param[1]}`;
      return segment === "*" ? "By path" : segment;
    })
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return method.toLowerCase() + words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("");
}

/** Fastify's `*` wildcard is not an OpenAPI path template: `/checkout/*` is documented as `/checkout/{path}`. */
const documentedUrl = (url: string) => url.replace(/\*$/, ":path");

function securityOf(route: RouteOptions, url: string, options: ApiDescriptionOptions): Security {
  const caller = route.config?.caller;
  if (caller?.proof === "apiKey") return caller.required ? [{ [MERCHANT_API_KEY_SCHEME]: [] }] : [{ [MERCHANT_API_KEY_SCHEME]: [] }, {}];
  const session = options.sessionCookies.find((cookie) => cookie.under.some((prefix) => url.startsWith(prefix)));
  return session ? [{ [session.scheme]: [] }] : [];
}

const STATUS_TEXT: Record<string, string> = {
  "400": "Invalid request: VALIDATION_ERROR (`details` names the field), INVALID_JSON, or BAD_REQUEST (an invalid URL)",
  "401": "No valid credential (UNAUTHORIZED, INVALID_API_KEY) or the route's own proof failed",
  "403": "Forbidden (the caller's role or the key's scope does not allow this)",
  "404": "Not found",
  "409": "Conflict",
  "413": "Request body too large: PAYLOAD_TOO_LARGE (1 MiB, also once decoded)",
  "414": "URL too long: BAD_REQUEST (a path parameter over 100 characters)",
  "415": "Unsupported content type or content encoding: UNSUPPORTED_MEDIA_TYPE (send application/json)",
  "422": "Unprocessable",
  "429": "Too many requests: RATE_LIMITED (Retry-After, X-RateLimit-* say when to come back)",
  "503": "Service busy (OVERLOADED) or temporarily unavailable (SERVICE_UNAVAILABLE); Retry-After says when to retry",
};
const CSRF_TEXT =
  "CSRF_REJECTED: the request carries the administration session cookie but neither an `Origin` header equal to the service's origin (PUBLIC_BASE_URL) nor `Sec-Fetch-Site: same-origin`";

/** The statuses the cross-cutting layers can answer on this route, whatever its handler does. */
function layerStatuses(method: string, url: string, route: RouteOptions, security: Security): string[] {
  const statuses: string[] = [];
  if (BODY_METHODS.has(method)) statuses.push("413", "415", "403");
  // The router's own refusals: a parameter that is not valid percent-encoded UTF-8, or too long.
  if (/[:*]/.test(url)) statuses.push("400", "414");
  if (security.length > 0 && !security.some((alternative) => Object.keys(alternative).length === 0)) statuses.push("401");
  if (isRateLimited(url, route.config)) statuses.push("429");
  if (AdmissionControl.classOf(method, url) !== null) statuses.push("503");
  return statuses;
}

function completeRoute(route: RouteOptions, schema: Json, options: ApiDescriptionOptions): { schema: Json; url: string } {
  const methods = [route.method].flat();
  const url = documentedUrl(route.url);
  const security: Security = schema.security ?? securityOf(route, route.url, options);
  const response: Json = { ...(schema.response ?? {}) };
  const layers = [...new Set(methods.flatMap((method) => layerStatuses(method, route.url, route, security)))];
  for (const status of layers) response[status] ??= errorBody();
  // Carried to the document (swagger copies `x-` members) for completeDocument, which removes it.
  return { url, schema: { ...schema, operationId: schema.operationId ?? operationIdOf(methods[0]!, url), security, response, [LAYER_STATUSES]: layers } };
}

const isJson = (mediaType: string) => /^application\/(.+\+)?json$/.test(mediaType);

/** Error bodies are JSON on every route, also where the success is CSV, HTML or text (`produces`). */
function errorsAsJson(responses: Json): void {
  for (const [status, response] of Object.entries(responses)) {
    const content = response?.content as Json | undefined;
    if (!content || Number(status) < 400) continue;
    const [, first] = Object.entries(content)[0] ?? [];
    if (first?.schema?.$ref === ERROR_BODY_REF && !Object.keys(content).some(isJson)) response.content = { "application/json": first };
  }
}

/** A response whose schema says `contentMediaType` (a page: `htmlPage()` in http/schemas.ts) has that media type. */
function mediaTypesAsDeclared(responses: Json): void {
  for (const response of Object.values(responses)) {
    const content = response?.content as Json | undefined;
    const declared = content?.["application/json"]?.schema?.contentMediaType;
    if (typeof declared === "string") response.content = { [declared]: content!["application/json"] };
  }
}

/** The layers answer JSON, also where the route's own answer of that status is a page (a demo page's 429). */
function layerErrorsAsJson(operation: Json): void {
  for (const status of (operation[LAYER_STATUSES] ?? []) as string[]) {
    const content = operation.responses?.[status]?.content as Json | undefined;
    if (!content || Object.keys(content).some(isJson)) continue;
    content["application/json"] = { schema: { $ref: ERROR_BODY_REF } };
    if (STATUS_TEXT[status]) operation.responses[status].description += `; or JSON: ${STATUS_TEXT[status]}`;
  }
  delete operation[LAYER_STATUSES];
}

/** A parameter or member with a default is not required of the client: the service fills it in (Ajv's useDefaults). */
function defaultsNotRequired(schema: Json | undefined): void {
  if (!schema || typeof schema !== "object") return;
  if (Array.isArray(schema.required) && schema.properties) {
    schema.required = schema.required.filter((name: string) => schema.properties[name]?.default === undefined);
    if (schema.required.length === 0) delete schema.required;
  }
  for (const value of Object.values(schema)) if (value && typeof value === "object") defaultsNotRequired(value);
}

function describeStatuses(responses: Json, method: string): void {
  for (const [status, response] of Object.entries(responses)) {
    if (response.description === "Default Response" && STATUS_TEXT[status]) response.description = STATUS_TEXT[status];
    if (status === "403" && BODY_METHODS.has(method) && !String(response.description).includes("CSRF_REJECTED")) {
      response.description = response.description === "Default Response" ? CSRF_TEXT : `${response.description}; or ${CSRF_TEXT}`;
    }
    if (status === "429" || status === "503") response.headers ??= { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } };
  }
}

/** The whole document's fix-ups, on a copy (the route schemas stay as Fastify compiled them). */
function completeDocument(generated: Json): Json {
  const doc = JSON.parse(JSON.stringify(generated)) as Json;
  for (const operations of Object.values(doc.paths ?? {}) as Json[]) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const parameter of operation.parameters ?? []) if (parameter.schema?.default !== undefined) parameter.required = false;
      for (const media of Object.values(operation.requestBody?.content ?? {}) as Json[]) defaultsNotRequired(media.schema);
      errorsAsJson(operation.responses ?? {});
      mediaTypesAsDeclared(operation.responses ?? {});
      layerErrorsAsJson(operation);
      describeStatuses(operation.responses ?? {}, method.toUpperCase());
    }
  }
  return doc;
}

/** @fastify/swagger and its UI at /docs, /openapi.json; every route registered after this is described. */
export async function registerApiDescription(app: FastifyInstance, options: ApiDescriptionOptions): Promise<void> {
  const cookieScheme = (cookie: Omit<SessionCookie, "under">) => ({ type: "apiKey" as const, in: "cookie" as const, name: cookie.cookie, description: cookie.description });
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Checkout, upsell and administration API",
        version: "1.0.0",
        description: "Errors are JSON `{ error, code?, details?, requestId, docUrl }` (every code, its meaning and fix: /docs/errors). Merchant servers use `/api/v1` with a brand API key; `/api/v1` takes a `Checkout-Version` header (docs/merchant-api.md \"Versions\").",
      },
      servers: [{ url: new URL(options.publicBaseUrl).href.replace(/\/$/, ""), description: "This service (PUBLIC_BASE_URL)" }],
      // (Its schemas are JSON Schema objects built by TypeBox, which the plugin's OpenAPI types do not name.)
      ...(options.webhooks ? { webhooks: options.webhooks as never } : {}),
      components: {
        securitySchemes: {
          // Issue 15: `/api/v1` takes a brand's API key (docs/merchant-api.md).
          [MERCHANT_API_KEY_SCHEME]: { type: "http", scheme: "bearer", description: "A brand API key, `sk_…`, as `Authorization: Bearer sk_…`" },
          ...Object.fromEntries(options.sessionCookies.map((cookie) => [cookie.scheme, cookieScheme(cookie)])),
          ...Object.fromEntries((options.otherCookies ?? []).map((cookie) => [cookie.scheme, cookieScheme(cookie)])),
        },
      },
    },
    // Shared schemas are named by their $id (ErrorBody), not def-0.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: ({ schema, route }) => {
      if (!schema || (schema as Json).hide) return { schema, url: route.url };
      return completeRoute(route, schema as Json, options) as any;
    },
    transformObject: (document) => completeDocument((document as { openapiObject: Json }).openapiObject) as any,
  });
  await app.register(swaggerUi, { routePrefix: "/docs" });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
