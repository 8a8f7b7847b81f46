// Every checkout, token and provider route is in the generated OpenAPI document with its request
// schema, its success response and its error responses (issue "Checkout core", point 6).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";

let t: TestApp;
let doc: Record<string, any>;
beforeAll(async () => {
  t = await buildTestApp();
  doc = json(await t.app.inject({ method: "GET", url: "/openapi.json" }));
});
afterAll(() => t.close());

const POSTS = [
  "/api/token/generate",
  "/api/checkout/initialize",
  "/api/checkout/complete",
  "/api/checkout/get-payment-token",
  "/api/providers/intent_gateway/create-intent",
  "/api/providers/intent_gateway/confirm",
  "/api/providers/vault_gateway_a/process-payment",
  "/api/providers/vault_gateway_a/process-upsell",
  "/api/providers/order_crm_a/create-order",
  "/api/providers/order_crm_a/process-payment",
  "/api/providers/order_crm_a/confirm-order",
  "/api/providers/order_crm_b/process-payment",
  "/api/providers/hosted_store/create-checkout",
  "/api/providers/hosted_store/complete-checkout",
  "/api/providers/hosted_store/confirm-order",
  "/api/providers/cart_gateway/create-cart",
  "/api/providers/cart_gateway/process-payment",
  "/api/providers/vault_gateway_b/process-payment",
];

describe("OpenAPI document", () => {
  it.each(POSTS)("documents POST %s with request, success and error schemas", (path) => {
    const operation = doc.paths?.[path]?.post;
    expect(operation, path).toBeDefined();
    expect(operation.requestBody?.content?.["application/json"]?.schema, path).toBeDefined();
    expect(operation.responses?.["200"], path).toBeDefined();
    const errorStatuses = Object.keys(operation.responses).filter((s) => s.startsWith("4"));
    expect(errorStatuses.length, path).toBeGreaterThan(0);
  });

  it("documents the short link", () => {
    expect(doc.paths?.["/c/{code}"]?.get).toBeDefined();
  });
});
