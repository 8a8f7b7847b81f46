// The domains and marketing list routes are in the generated OpenAPI document with bodies and error responses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";

let t: TestApp;
let doc: Record<string, any>;
beforeAll(async () => {
  t = await buildTestApp();
  doc = json(await t.app.inject({ method: "GET", url: "/openapi.json" }));
});
afterAll(() => t.close());

const OPERATIONS: [method: string, path: string, errors: string[], hasBody: boolean][] = [
  ["get", "/api/admin/domains", ["400", "401", "403"], false],
  ["post", "/api/admin/domains", ["400", "401", "403", "409", "502"], true],
  ["put", "/api/admin/domains", ["400", "401", "403", "404", "502"], true],
  ["delete", "/api/admin/domains", ["400", "401", "403", "404", "502"], false],
  ...["email_list_a", "email_list_b", "sms_segments"].flatMap((source): [string, string, string[], boolean][] => [
    ["get", `/api/admin/${source}/lists`, ["400", "401", "403", "500"], false],
    ["put", `/api/admin/${source}/lists`, ["400", "401", "403"], true],
  ]),
];

describe("OpenAPI: domains and marketing lists", () => {
  it.each(OPERATIONS)("documents %s %s", (method, path, errors, hasBody) => {
    const operation = doc.paths?.[path]?.[method];
    expect(operation, `${method} ${path}`).toBeDefined();
    expect(operation.tags?.length).toBeGreaterThan(0);
    expect(operation.responses?.["200"]).toBeDefined();
    for (const status of errors) expect(operation.responses?.[status], `${method} ${path} ${status}`).toBeDefined();
    if (hasBody) expect(operation.requestBody?.content?.["application/json"]?.schema).toBeDefined();
  });

  it("documents the domain query of DELETE", () => {
    expect(doc.paths["/api/admin/domains"].delete.parameters.map((p: { name: string }) => p.name)).toContain("domain");
  });
});
