// Checks on the generated OpenAPI document (not a test file itself).
import { expect } from "vitest";
import { buildTestApp, json } from "./app.js";

/** An operation as a route file should document it: input kind and the error statuses it can answer. */
export type DocumentedOperation = [method: string, path: string, input: "body" | "query" | "none", errors: string[]];

/** The generated /openapi.json of a test app built and closed for it (the document depends on no data). */
export async function openApiDocument(): Promise<Record<string, any>> {
  const t = await buildTestApp();
  try {
    return json(await t.app.inject({ method: "GET", url: "/openapi.json" }));
  } finally {
    await t.close();
  }
}

/** The operation exists with tags, its request schema, a 200 and each of its error statuses. */
export function expectDocumented(doc: Record<string, any>, [method, path, input, errors]: DocumentedOperation): void {
  const operation = doc.paths?.[path]?.[method];
  expect(operation, `${method} ${path}`).toBeDefined();
  expect(operation.tags?.length).toBeGreaterThan(0);
  if (input === "body") expect(operation.requestBody?.content?.["application/json"]?.schema, `${method} ${path} body`).toBeDefined();
  // "query": a listing with its filters (page, limit and at least two more).
  if (input === "query") expect(operation.parameters?.length, `${method} ${path} query`).toBeGreaterThan(3);
  expect(operation.responses?.["200"]).toBeDefined();
  for (const status of errors) expect(operation.responses?.[status], `${method} ${path} ${status}`).toBeDefined();
}
