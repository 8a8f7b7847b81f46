// The users, organizations and brands routes (with the DELETE and restore additions) are in the
// generated OpenAPI document with their parameters, bodies, success and error responses.
import { beforeAll, describe, expect, it } from "vitest";
import { expectDocumented, openApiDocument, type DocumentedOperation } from "../support/openapi.js";

let doc: Record<string, any>;
beforeAll(async () => {
  doc = await openApiDocument();
});

const OPERATIONS: DocumentedOperation[] = [
  ["get", "/api/admin/users", "none", ["401", "403"]],
  ["post", "/api/admin/users", "body", ["400", "401", "403", "404"]],
  ["get", "/api/admin/users/{userId}", "none", ["401", "403", "404"]],
  ["put", "/api/admin/users/{userId}", "body", ["400", "401", "403", "404", "409"]],
  ["delete", "/api/admin/users/{userId}", "none", ["401", "403", "404", "409"]],
  ["get", "/api/admin/organizations", "none", ["401", "403"]],
  ["post", "/api/admin/organizations", "body", ["400", "401", "403", "409"]],
  ["delete", "/api/admin/organizations/{id}", "none", ["401", "403", "404", "409"]],
  ["post", "/api/admin/organizations/{id}/restore", "none", ["401", "403", "404"]],
  ["get", "/api/admin/brands", "none", ["401", "403"]],
  ["post", "/api/admin/brands", "body", ["400", "401", "403", "409"]],
  ["delete", "/api/admin/brands/{id}", "none", ["401", "403", "404", "409"]],
  ["post", "/api/admin/brands/{id}/restore", "none", ["401", "403", "404"]],
];

describe("OpenAPI: users, organizations and brands", () => {
  it.each(OPERATIONS)("documents %s %s", (...operation) => expectDocumented(doc, operation));

  it("documents the deleted filters of the listings", () => {
    for (const path of ["/api/admin/organizations", "/api/admin/brands"]) {
      const names = (doc.paths[path].get.parameters ?? []).map((p: { name: string }) => p.name);
      expect(names).toEqual(expect.arrayContaining(["includeDeleted", "deletedOnly"]));
    }
  });
});
