// The domains and marketing list routes are in the generated OpenAPI document with bodies and error responses.
import { beforeAll, describe, expect, it } from "vitest";
import { expectDocumented, openApiDocument, type DocumentedOperation } from "../../test/support/openapi.js";

let doc: Record<string, any>;
beforeAll(async () => {
  doc = await openApiDocument();
});

const OPERATIONS: DocumentedOperation[] = [
  ["get", "/api/admin/domains", "none", ["400", "401", "403"]],
  ["post", "/api/admin/domains", "body", ["400", "401", "403", "409", "502"]],
  ["put", "/api/admin/domains", "body", ["400", "401", "403", "404", "502"]],
  ["delete", "/api/admin/domains", "none", ["400", "401", "403", "404", "502"]],
  ...["email_list_a", "email_list_b", "sms_segments"].flatMap((source): DocumentedOperation[] => [
    ["get", `/api/admin/${source}/lists`, "none", ["400", "401", "403", "500"]],
    ["put", `/api/admin/${source}/lists`, "body", ["400", "401", "403"]],
  ]),
];

describe("OpenAPI: domains and marketing lists", () => {
  it.each(OPERATIONS)("documents %s %s", (...operation) => expectDocumented(doc, operation));

  it("documents the domain query of DELETE", () => {
    expect(doc.paths["/api/admin/domains"].delete.parameters.map((p: { name: string }) => p.name)).toContain("domain");
  });
});
