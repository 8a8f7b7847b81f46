// The audit, commission, salesperson and link-generator routes are in /openapi.json with their
// request schema, success response and error responses.
import { beforeAll, describe, it } from "vitest";
import { expectDocumented, openApiDocument, type DocumentedOperation } from "../../test/support/openapi.js";

let doc: Record<string, any>;
beforeAll(async () => {
  doc = await openApiDocument();
});

const ROUTES: DocumentedOperation[] = [
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
  it.each(ROUTES)("documents %s %s", (...operation) => expectDocumented(doc, operation));
});
