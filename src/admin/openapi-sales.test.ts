// The audit, commission, salesperson and link-generator routes are in /openapi.json with their
// request schema, success response and error responses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";

let t: TestApp;
let doc: Record<string, any>;
beforeAll(async () => {
  t = await buildTestApp();
  doc = json(await t.app.inject({ method: "GET", url: "/openapi.json" }));
});
afterAll(() => t.close());

const ROUTES: [string, string, "body" | "query" | "none", string[]][] = [
  ["get", "/api/admin/audit-logs", "query", ["400", "401", "403"]],
  ["get", "/api/admin/commissions", "query", ["400", "401", "403"]],
  ["post", "/api/admin/commissions", "body", ["400", "401", "403"]],
  ["get", "/api/admin/salespeople", "none", ["401", "403"]],
  ["post", "/api/admin/salespeople", "body", ["400", "401", "403"]],
  ["post", "/api/salesperson/auth", "body", ["400", "401", "429"]],
  ["get", "/api/salesperson/auth", "none", ["401"]],
  ["delete", "/api/salesperson/auth", "none", []],
  ["post", "/api/admin/tools/generate-link", "body", ["400", "401", "403", "404"]],
];

describe("OpenAPI document", () => {
  it.each(ROUTES)("documents %s %s", (method, path, input, errors) => {
    const operation = doc.paths?.[path]?.[method];
    expect(operation, path).toBeDefined();
    expect(operation.tags?.length).toBeGreaterThan(0);
    if (input === "body") expect(operation.requestBody?.content?.["application/json"]?.schema).toBeDefined();
    if (input === "query") expect(operation.parameters?.length).toBeGreaterThan(3);
    expect(operation.responses?.["200"]).toBeDefined();
    for (const status of errors) expect(operation.responses?.[status], `${path} ${status}`).toBeDefined();
  });
});
