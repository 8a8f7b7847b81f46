// "No input ever yields a 500": every route of the OpenAPI document, with and without an owner's
// session (and the brand's API key on /api/v1), gets malformed bodies, wrong types, odd path parameters and odd query strings. Each
// answer must be below 500, and every error must be the contract's { error: string } JSON.
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/app.js";
import { registerOwner } from "../support/admin.js";
import { ORIGIN } from "../support/identity.js";
import { leafPaths, memberPaths, nestedJson, operationsOf, sampleOf, withMember, type Operation } from "../support/openapi-inputs.js";
import { SESSION_COOKIE } from "../../src/identity/policy.js";
import { bearer, createApiKey } from "../support/merchant.js";

let t: TestApp;
let session: string;
/** The owner's brand's API key: /api/v1 takes a Bearer key where the other routes take the session. */
let apiKey: string;
let routes: { method: string; path: string }[];
/** Operations with a JSON body, but not the one that ends the session the others use. */
let bodyOperations: (Operation & { body: Record<string, any> })[];

beforeAll(async () => {
  t = await buildTestApp();
  session = (await registerOwner(t)).session;
  apiKey = (await createApiKey(t, session)).secret;
  const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json() as { paths: Record<string, Record<string, any>> };
  bodyOperations = operationsOf(doc).filter((op): op is Operation & { body: Record<string, any> } => op.body !== null);
  routes = Object.entries(doc.paths)
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })))
    // Logging out ends the session the other calls use: last.
    .sort((a, b) => Number(a.method === "DELETE" && a.path === "/api/admin/auth") - Number(b.method === "DELETE" && b.path === "/api/admin/auth"));
});
afterAll(() => t?.close());

const BODIES = ["[]", "null", "42", '"text"', "{}", '{"id": {"$gt": ""}}', '{"amount": 1e400, "page": -1, "limit": "x"}', '{"__proto__": {"admin": true}}', `{"name": "${"x".repeat(5000)}"}`, '{"name": "a\\u0000b", "email": "x\\u0000@example.com"}'];
const PARAMS = ["unknown-id", "..%2F..%2Fetc", "%00", "x".repeat(300)];
const QUERY = "?page=-1&limit=abc&startDate=yesterday&endDate=1e400&includeStats=maybe&success=2&domain=&status=nope&search=%27%3B--";

async function call(method: string, url: string, body: string | Buffer | undefined, withSession: boolean, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: method as "GET",
    url,
    payload: body,
    headers: {
      origin: ORIGIN,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...(withSession && url.startsWith("/api/v1/") ? bearer(apiKey) : {}),
      ...headers,
    },
    cookies: withSession ? { [SESSION_COOKIE]: session } : {},
  });
}

/** Path parameters filled with a plausible id: the body is what these cases are about. */
const urlOf = (op: Operation) => op.path.replace(/\{[^}]+\}/g, "fuzz-id");

// Issue 22's classes: each was a 500 (or a body taken with its coding left on) before the fix.
// First: the catch-all below ends with logging the session out.
describe("no input yields a 500: text, nesting, unknown members, encodings", () => {
  const SURROGATES = ["\ud800", "x\udc00y", "\udfff\ud800"];

  it("refuses a lone surrogate in every string field of every operation with 400 naming the field", async () => {
    const failures: string[] = [];
    let named = 0;
    for (const op of bodyOperations) {
      const sample = sampleOf(op.body);
      for (const [i, path] of leafPaths(op.body, "string").entries()) {
        const res = await call(op.method, urlOf(op), JSON.stringify(withMember(sample, path, SURROGATES[i % 3])), true);
        const field = path.join(".");
        const body = res.json() as { code?: string; details?: string };
        if (res.statusCode === 400 && body.code === "VALIDATION_ERROR" && body.details === field) named++;
        // Only a guard that runs before any body is read may answer otherwise (none does for an owner).
        else failures.push(`${op.method} ${op.path} ${field}: ${res.statusCode} ${res.body.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
    expect(named).toBeGreaterThan(250); // control: the document's string fields were all reached
  });

  it("refuses a lone surrogate in a member name, and a login with one is refused cleanly", async () => {
    const key = await call("POST", "/api/token/generate", '{"customer": {"x\\udc00": "a"}}', false);
    expect(key.statusCode).toBe(400);
    expect(key.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "customer.x\ufffd" });
    const login = await call("POST", "/api/admin/auth", JSON.stringify({ email: "ada\ud800@example.com", password: "wrong password" }), false);
    expect(login.statusCode).toBe(400);
    expect(login.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "email" });
    const salesperson = await call("POST", "/api/salesperson/auth", JSON.stringify({ email: "\udfff\ud800", password: "x" }), false);
    expect(salesperson.statusCode).toBe(400);
    expect((await call("GET", "/api/admin/audit-logs", undefined, true)).statusCode).toBe(200);
    // In a path, the UTF-8 of a surrogate is not valid percent-encoding: 400 in the contract's shape.
    const inPath = await call("GET", "/api/upsell/session/%ED%A0%80", undefined, false);
    expect(inPath.statusCode).toBe(400);
    expect(inPath.json()).toMatchObject({ error: "Invalid URL: not valid percent-encoded UTF-8", code: "BAD_REQUEST", details: "url" });
  });

  it("refuses nesting deeper than 32 levels on every operation, at 10 000 levels as at 33", async () => {
    const failures: string[] = [];
    for (const op of bodyOperations) {
      for (const levels of [10_000, 1_000, 33]) {
        const res = await call(op.method, urlOf(op), `{"nested": ${nestedJson(levels - 1)}}`, true);
        const body = res.json() as { code?: string; error?: string };
        if (res.statusCode !== 400 || body.code !== "VALIDATION_ERROR" || !body.error?.includes("deeper than 32")) failures.push(`${op.method} ${op.path} ${levels}: ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
    }
    expect(failures).toEqual([]);
    // 32 levels are within the limit (the unknown member is then dropped by the schema).
    const within = await call("POST", "/api/token/generate", `{"nested": ${nestedJson(31)}}`, false);
    expect(within.statusCode).toBe(200);
  });

  it("drops unknown members at any depth: a generated token carries none of them", async () => {
    const body = {
      orderInfo: { orderId: "unknown-members", total: 1500, currency: "USD", productName: "Mug", extra: "x" },
      lineItems: [{ id: "li_1", name: "Mug", quantity: 1, unitPrice: 1500, extra: { deep: 1 } }],
      customer: { email: "ada@example.com", nested: JSON.parse(nestedJson(30)) },
      salesAttribution: { salespersonId: "sp_1", extra: true },
      extra: 1,
    };
    const res = await call("POST", "/api/token/generate", JSON.stringify(body), false);
    expect(res.statusCode).toBe(200);
    const claims = JSON.parse(Buffer.from(res.json().token.split(".")[1], "base64url").toString());
    expect(claims.customer).toEqual({ email: "ada@example.com" });
    expect(claims.salesAttribution).toEqual({ salespersonId: "sp_1" });
    expect(JSON.stringify(claims)).not.toMatch(/extra|nested/);
  });

  it("answers an unknown member (deep or shallow) on every operation below 500", async () => {
    const failures: string[] = [];
    for (const op of bodyOperations) {
      const sample = sampleOf(op.body);
      for (const path of [[], ...memberPaths(op.body)]) {
        const res = await call(op.method, urlOf(op), JSON.stringify(withMember(sample, [...path, "__unknown"], { deep: [1, { x: "y" }] })), true);
        if (res.statusCode >= 500) failures.push(`${op.method} ${op.path} ${path.join(".")}: ${res.statusCode} ${res.body.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  describe("Content-Encoding", () => {
    const generate = JSON.stringify({ orderInfo: { orderId: "encoded", total: 1500, currency: "USD", productName: "Mug" } });

    it.each([
      ["gzip", gzipSync],
      ["deflate", deflateSync],
      ["br", brotliCompressSync],
    ] as const)("decodes a %s body", async (encoding, encode) => {
      const res = await call("POST", "/api/token/generate", encode(generate), false, { "content-encoding": encoding });
      expect(res.statusCode).toBe(200);
      expect(res.json().payload).toEqual({ orderId: "encoded", total: 1500, currency: "USD" });
    });

    it("never parses a body whose coding was not applied: plain JSON labelled gzip is 400", async () => {
      const res = await call("POST", "/api/token/generate", generate, false, { "content-encoding": "gzip" });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: "BAD_REQUEST", details: "content-encoding" });
    });

    it("answers 415 to a coding it does not decode", async () => {
      for (const encoding of ["zstd", "compress", "gzip, br", "constructor"]) {
        const res = await call("POST", "/api/token/generate", generate, false, { "content-encoding": encoding });
        expect(res.statusCode, encoding).toBe(415);
        expect(res.json()).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", details: "content-encoding" });
      }
    });

    it("applies the 1 MiB limit to the decoded size: a zip bomb is 413 on every operation", async () => {
      const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, " "));
      expect(bomb.length).toBeLessThan(100 * 1024);
      const failures: string[] = [];
      for (const op of bodyOperations) {
        const res = await call(op.method, urlOf(op), bomb, true, { "content-encoding": "gzip" });
        if (res.statusCode !== 413) failures.push(`${op.method} ${op.path}: ${res.statusCode} ${res.body.slice(0, 120)}`);
      }
      expect(failures).toEqual([]);
    });
  });
});

// Issue 31 item 13: each of these was a 500 (an instant a Date cannot hold, a day that does not exist).
describe("date query parameters: 400 naming the parameter", () => {
  let funnelId: string;
  beforeAll(async () => {
    const body = { name: "Dates", status: "draft", trigger: { match: "all", conditions: [] }, steps: [{ variants: [{ offer: { name: "Extra", price: 500 } }] }] };
    const res = await call("POST", "/api/admin/funnels", JSON.stringify(body), true);
    expect(res.statusCode, res.body).toBe(200);
    funnelId = res.json().funnel.id;
  });

  const cases = (): [string, string][] => [
    ["/api/admin/commissions?startDate=9e15", "startDate"],
    ["/api/admin/commissions?endDate=1e400", "endDate"],
    ["/api/admin/commissions?startDate=-1", "startDate"],
    ["/api/admin/audit-logs?startDate=9e15", "startDate"],
    ["/api/admin/audit-logs?endDate=1e400", "endDate"],
    ["/api/admin/orders?from=9e15", "from"],
    ["/api/admin/orders?to=1e400", "to"],
    ["/api/admin/orders/export.csv?to=1e400", "to"],
    [`/api/admin/funnels/${funnelId}/stats?to=2026-12-32`, "to"],
    [`/api/admin/funnels/${funnelId}/stats?to=2026-99-01`, "to"],
    [`/api/admin/funnels/${funnelId}/stats?to=2026-02-30`, "to"],
    [`/api/admin/funnels/${funnelId}/stats?from=2026-12-32`, "from"],
    [`/api/admin/funnels/${funnelId}/stats?from=2026-99-01&to=2026-12-01`, "from"],
    [`/api/admin/funnels/${funnelId}/stats?from=0000-01-01`, "from"],
  ];

  it("answers each with 400 VALIDATION_ERROR whose details is the parameter", async () => {
    const answers = [];
    for (const [url, parameter] of cases()) {
      const res = await call("GET", url, undefined, true);
      answers.push({ url, status: res.statusCode, code: res.json().code, details: res.json().details, names: String(res.json().error).includes(parameter) });
    }
    expect(answers).toEqual(cases().map(([url, parameter]) => ({ url, status: 400, code: "VALIDATION_ERROR", details: parameter, names: true })));
  });

  it("the same on /api/v1/orders with the API key", async () => {
    for (const query of ["from=9e15", "to=1e400"]) {
      const res = await call("GET", `/api/v1/orders?${query}`, undefined, true);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toMatchObject({ code: "VALIDATION_ERROR", details: query.split("=")[0] });
    }
  });

  it("still takes the widest valid values", async () => {
    const max = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    for (const url of [`/api/admin/commissions?startDate=0&endDate=${max}`, `/api/admin/audit-logs?startDate=0&endDate=${max}`, `/api/admin/orders?from=0&to=${max}`, `/api/admin/funnels/${funnelId}/stats?from=2026-02-28&to=2026-03-01`]) {
      const res = await call("GET", url, undefined, true);
      expect(res.statusCode, `${url} ${res.body}`).toBe(200);
    }
  });
});

describe("no input yields a 500", () => {
  it("covers the whole API (control: the document lists the routes)", () => {
    expect(routes.length).toBeGreaterThan(60);
  });

  it("answers every route's odd input below 500, errors in the contract's shape", async () => {
    const failures: string[] = [];
    for (const route of routes) {
      for (const param of PARAMS) {
        const path = route.path.replace(/\{[^}]+\}/g, param);
        const bodies = route.method === "GET" || route.method === "HEAD" || route.method === "DELETE" ? [undefined] : BODIES;
        for (const body of bodies) {
          for (const withSession of [true, false]) {
            const res = await call(route.method, `${path}${QUERY}`, body, withSession);
            const label = `${route.method} ${path} ${body ?? ""} ${withSession ? "(session)" : ""}`.slice(0, 200);
            if (res.statusCode >= 500) failures.push(`${res.statusCode} ${label}: ${res.body.slice(0, 200)}`);
            else if (res.statusCode >= 400 && res.headers["content-type"]?.toString().includes("json") && typeof res.json().error !== "string") {
              failures.push(`${res.statusCode} without an error text: ${label}`);
            }
          }
        }
        if (!route.path.includes("{")) break; // one round is enough without path parameters
      }
    }
    expect(failures).toEqual([]);
  });
});

