// "No input ever yields a 500": every route of the OpenAPI document, with and without an owner's
// session, gets malformed bodies, wrong types, odd path parameters and odd query strings. Each
// answer must be below 500, and every error must be the contract's { error: string } JSON.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/app.js";
import { registerOwner } from "../support/admin.js";
import { ORIGIN } from "../support/identity.js";
import { SESSION_COOKIE } from "../../src/identity/policy.js";

let t: TestApp;
let session: string;
let routes: { method: string; path: string }[];

beforeAll(async () => {
  t = await buildTestApp();
  session = (await registerOwner(t)).session;
  const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json() as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(doc.paths)
    .flatMap(([path, operations]) => Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })))
    // Logging out ends the session the other calls use: last.
    .sort((a, b) => Number(a.method === "DELETE" && a.path === "/api/admin/auth") - Number(b.method === "DELETE" && b.path === "/api/admin/auth"));
});
afterAll(() => t?.close());

const BODIES = ["[]", "null", "42", '"text"', "{}", '{"id": {"$gt": ""}}', '{"amount": 1e400, "page": -1, "limit": "x"}', '{"__proto__": {"admin": true}}', `{"name": "${"x".repeat(5000)}"}`, '{"name": "a\\u0000b", "email": "x\\u0000@example.com"}'];
const PARAMS = ["unknown-id", "..%2F..%2Fetc", "%00", "x".repeat(300)];
const QUERY = "?page=-1&limit=abc&startDate=yesterday&endDate=1e400&includeStats=maybe&success=2&domain=&status=nope&search=%27%3B--";

async function call(method: string, url: string, body: string | undefined, withSession: boolean) {
  return t.app.inject({
    method: method as "GET",
    url,
    payload: body,
    headers: { origin: ORIGIN, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    cookies: withSession ? { [SESSION_COOKIE]: session } : {},
  });
}

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
