// The users, organizations and brands routes (with the DELETE and restore additions) are in the
// generated OpenAPI document with their parameters, bodies, success and error responses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";

let t: TestApp;
let doc: Record<string, any>;
beforeAll(async () => {
  t = await buildTestApp();
  doc = json(await t.app.inject({ method: "GET", url: "/openapi.json" }));
});
afterAll(() => t.close());

const OPERATIONS: [method: string, path: string, errors: string[], hasBody: boolean][] = [
  ["get", "/api/admin/users", ["401", "403"], false],
  ["post", "/api/admin/users", ["400", "401", "403", "404"], true],
  ["get", "/api/admin/users/{userId}", ["401", "403", "404"], false],
  ["put", "/api/admin/users/{userId}", ["400", "401", "403", "404", "409"], true],
  ["delete", "/api/admin/users/{userId}", ["401", "403", "404", "409"], false],
  ["get", "/api/admin/organizations", ["401", "403"], false],
  ["post", "/api/admin/organizations", ["400", "401", "403", "409"], true],
  ["delete", "/api/admin/organizations/{id}", ["401", "403", "404", "409"], false],
  ["post", "/api/admin/organizations/{id}/restore", ["401", "403", "404"], false],
  ["get", "/api/admin/brands", ["401", "403"], false],
  ["post", "/api/admin/brands", ["400", "401", "403", "409"], true],
  ["delete", "/api/admin/brands/{id}", ["401", "403", "404", "409"], false],
  ["post", "/api/admin/brands/{id}/restore", ["401", "403", "404"], false],
];

describe("OpenAPI: users, organizations and brands", () => {
  it.each(OPERATIONS)("documents %s %s", (method, path, errors, hasBody) => {
    const operation = doc.paths?.[path]?.[method];
    expect(operation, `${method} ${path}`).toBeDefined();
    expect(operation.tags?.length).toBeGreaterThan(0);
    expect(operation.responses?.["200"]).toBeDefined();
    for (const status of errors) expect(operation.responses?.[status], `${method} ${path} ${status}`).toBeDefined();
    if (hasBody) expect(operation.requestBody?.content?.["application/json"]?.schema).toBeDefined();
  });

  it("documents the deleted filters of the listings", () => {
    for (const path of ["/api/admin/organizations", "/api/admin/brands"]) {
      const names = (doc.paths[path].get.parameters ?? []).map((p: { name: string }) => p.name);
      expect(names).toEqual(expect.arrayContaining(["includeDeleted", "deletedOnly"]));
    }
  });
});
