// The API description (/openapi.json) passes `redocly lint` with the recommended rules (redocly.yaml)
// with 0 errors, and holds for every route, also routes added later: an operationId and a declared
// security on each operation, servers, no required parameter with a default, the statuses the
// cross-cutting layers answer, JSON errors and HTML pages (issue 33 item 5).
import { beforeAll, describe, expect, it } from "vitest";
import { lintApiDescription, openApiDocument, type LintProblem } from "../support/openapi.js";

let doc: Record<string, any>;
let operations: { method: string; path: string; operation: Record<string, any> }[];
beforeAll(async () => {
  doc = await openApiDocument();
  operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
});

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const statusesOf = (operation: Record<string, any>) => Object.keys(operation.responses ?? {});

describe("redocly lint (recommended rules)", () => {
  it("reports 0 errors; the warnings left are redirects without a 2xx, pages without a 4xx, and the licence", () => {
    const { errors, warnings } = lintApiDescription(doc);
    const where = (p: LintProblem) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`;
    expect(errors.map(where)).toEqual([]);
    // Each warning left describes the service as it is (docs/merchant-api.md "API description").
    const unexplained = warnings.filter((warning) => {
      const [, path, method] = /^#\/paths\/([^/]+)\/([a-z]+)\/responses$/.exec(warning.location[0]?.pointer ?? "") ?? [];
      const statuses = path ? statusesOf(doc.paths[path.replace(/~1/g, "/").replace(/~0/g, "~")][method!]) : [];
      if (warning.ruleId === "info-license") return false; // a private service: no licence to name
      if (warning.ruleId === "operation-2xx-response") return !statuses.some((s) => s.startsWith("3"));
      if (warning.ruleId === "operation-4xx-response") return method !== "get";
      return true;
    });
    expect(unexplained.map(where)).toEqual([]);
    expect(warnings.length).toBeLessThan(30);
  });
});

describe("every operation", () => {
  it("covers the whole API (control)", () => {
    expect(operations.length).toBeGreaterThan(100);
  });

  it("has a unique operationId", () => {
    const ids = operations.map(({ operation }) => operation.operationId);
    expect(operations.filter(({ operation }) => typeof operation.operationId !== "string").map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths["/api/v1/orders/{orderId}/refunds"].post.operationId).toBe("postApiV1OrdersByOrderIdRefunds");
  });

  it("declares its security, each scheme defined; /api/v1 takes the key, /api/admin the session", () => {
    const schemes = Object.keys(doc.components.securitySchemes);
    const missing: string[] = [];
    for (const { method, path, operation } of operations) {
      if (!Array.isArray(operation.security)) missing.push(`${method} ${path}: no security`);
      for (const alternative of operation.security ?? []) for (const name of Object.keys(alternative)) if (!schemes.includes(name)) missing.push(`${method} ${path}: ${name}`);
      if (path.startsWith("/api/v1/")) expect(operation.security, `${method} ${path}`).toEqual([{ merchantApiKey: [] }]);
    }
    expect(missing).toEqual([]);
    expect(doc.paths["/api/admin/orders"].get.security).toEqual([{ adminSession: [] }]);
    expect(doc.paths["/api/admin/auth"].post.security).toEqual([]);
    expect(doc.paths["/api/checkout/complete"].post.security).toEqual([]);
    expect(doc.paths["/api/salesperson/auth"].get.security).toEqual([{ salespersonSession: [] }]);
    // The Origin rule is where a script writer looks for it: on the session's scheme.
    expect(doc.components.securitySchemes.adminSession).toMatchObject({ type: "apiKey", in: "cookie", name: "admin_session" });
    expect(doc.components.securitySchemes.adminSession.description).toMatch(/Origin.*CSRF_REJECTED/s);
  });

  it("names the service's own URL as its server", () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: "http://checkout.test" })]);
  });

  it("requires no parameter or body member that has a default", () => {
    const found: string[] = [];
    const walk = (schema: any, where: string) => {
      if (!schema || typeof schema !== "object") return;
      for (const name of Array.isArray(schema.required) ? schema.required : []) if (schema.properties?.[name]?.default !== undefined) found.push(`${where} ${name}`);
      for (const [key, value] of Object.entries(schema)) walk(value, `${where}/${key}`);
    };
    for (const { method, path, operation } of operations) {
      for (const parameter of operation.parameters ?? []) if (parameter.required && parameter.schema?.default !== undefined) found.push(`${method} ${path} ${parameter.name}`);
      walk(operation.requestBody, `${method} ${path}`);
    }
    expect(found).toEqual([]);
  });

  it("documents what the cross-cutting layers answer: 413, 415 and 403 CSRF_REJECTED on state changes, 414 with path parameters, 429, 503", () => {
    const missing: string[] = [];
    for (const { method, path, operation } of operations) {
      const statuses = statusesOf(operation);
      const need = [...(STATE_CHANGING.has(method) ? ["413", "415", "403"] : []), ...(path.includes("{") ? ["414"] : [])];
      // Not counted by the rate limit (CONTRACT §28 and the pages' rule) or never refused (probes).
      if (path !== "/metrics" && !["/checkout/{path}", "/upsell/{sessionId}", "/success", "/login", "/portal", "/admin", "/admin/{path}"].includes(path)) need.push("429", "503");
      for (const status of need) if (!statuses.includes(status)) missing.push(`${method} ${path} ${status}`);
      if (STATE_CHANGING.has(method) && !String(operation.responses["403"]?.description).includes("CSRF_REJECTED")) missing.push(`${method} ${path} 403 without CSRF_REJECTED`);
    }
    expect(missing).toEqual([]);
  });

  it("describes every error as JSON (also where the success is CSV or HTML), and pages as text/html", () => {
    const wrong: string[] = [];
    for (const { method, path, operation } of operations) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const types = Object.keys(response.content ?? {});
        if (Number(status) >= 400 && types.length > 0 && !types.includes("application/json") && !types.includes("text/html")) wrong.push(`${method} ${path} ${status}: ${types}`);
      }
    }
    expect(wrong).toEqual([]);
    const csv = doc.paths["/api/admin/orders/export.csv"].get.responses;
    expect(Object.keys(csv["200"].content)).toEqual(["text/csv"]);
    expect(Object.keys(csv["401"].content)).toEqual(["application/json"]);
    for (const path of ["/checkout/{path}", "/login", "/admin/{path}", "/upsell/{sessionId}"]) expect(Object.keys(doc.paths[path].get.responses["200"].content), path).toEqual(["text/html"]);
    expect(Object.keys(doc.paths["/l/{code}"].get.responses["404"].content)).toEqual(["text/html"]);
  });
});
