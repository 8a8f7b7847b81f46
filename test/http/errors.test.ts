// CONTRACT §2 and §17: bad input always gets a clear 4xx in the { error, code?, details? } shape,
// never a 500; Idempotency-Key replays, refuses reuse with another body, and rejects bad keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const post = (url: string, payload: string | object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: "POST", url, payload, headers: { "content-type": "application/json", ...headers } });

describe("error model", () => {
  it("answers malformed JSON with 400", async () => {
    const res = await post("/api/token/generate", '{"orderInfo": ');
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ error: "Malformed JSON body", code: "INVALID_JSON" });
  });

  it("answers a body over 1 MiB with 413", async () => {
    const res = await post("/api/token/generate", JSON.stringify({ orderInfo: { productName: "x".repeat(1024 * 1024) } }));
    expect(res.statusCode).toBe(413);
    expect(json(res).code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers a body that is not JSON with 415", async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/token/generate", payload: "a=b", headers: { "content-type": "text/plain" } });
    expect(res.statusCode).toBe(415);
    expect(json(res).code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });

  it("names the invalid field by its dotted path", async () => {
    const res = await post("/api/checkout/initialize", { token: "x", provider: "intent_gateway", customer: { email: 5, firstName: "A", lastName: "B" } });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "customer.email" });
    expect(json(res).error).toContain("customer.email");
  });

  it("refuses an unknown provider naming the field", async () => {
    const res = await post("/api/checkout/initialize", { token: "x", provider: "paypal" });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "provider" });
  });

  it("refuses prototype poisoning with 400", async () => {
    const res = await post("/api/token/generate", '{"__proto__": {"admin": true}}');
    expect(res.statusCode).toBe(400);
  });

  it("refuses a NUL character in the URL or the body with 400 (PostgreSQL text cannot hold one)", async () => {
    const inUrl = await t.app.inject({ method: "GET", url: "/api/upsell/session/ups_%00x" });
    expect(inUrl.statusCode).toBe(400);
    expect(json(inUrl)).toMatchObject({ code: "VALIDATION_ERROR", details: "url" });
    const inBody = await post("/api/token/generate", '{"orderInfo": {"productName": "a\\u0000b"}}');
    expect(inBody.statusCode).toBe(400);
    expect(json(inBody)).toMatchObject({ code: "VALIDATION_ERROR", details: "orderInfo.productName" });
  });

  it("never answers 500 to odd bodies", async () => {
    const bodies = ["[]", "null", "42", '"text"', '{"orderInfo": []}', '{"orderInfo": {"total": 1e400}}', '{"lineItems": {}}', '{"customer": null}'];
    for (const routeUrl of ["/api/token/generate", "/api/checkout/initialize", "/api/checkout/complete", "/api/checkout/get-payment-token"]) {
      for (const body of bodies) {
        const res = await post(routeUrl, body);
        expect(res.statusCode, `${routeUrl} ${body}`).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, `${routeUrl} ${body}`).toBeLessThan(500);
        expect(typeof json(res).error).toBe("string");
      }
    }
  });
});

describe("Idempotency-Key", () => {
  const body = { orderInfo: { orderId: "idem-1", total: 1500, currency: "USD", productName: "Mug" } };

  it("replays the first response for a repeat with the same body", async () => {
    const first = await post("/api/token/generate", body, { "idempotency-key": "key-replay" });
    expect(first.statusCode).toBe(200);
    const again = await post("/api/token/generate", body, { "idempotency-key": "key-replay" });
    expect(again.statusCode).toBe(200);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(json(again)).toEqual(json(first));
    const fresh = await post("/api/token/generate", body, { "idempotency-key": "key-other" });
    expect(json(fresh).code).not.toBe(json(first).code);
  });

  it("answers 422 for the same key with another body", async () => {
    await post("/api/token/generate", body, { "idempotency-key": "key-reuse" });
    const reused = await post("/api/token/generate", { ...body, orderInfo: { ...body.orderInfo, total: 1600 } }, { "idempotency-key": "key-reuse" });
    expect(reused.statusCode).toBe(422);
    expect(json(reused)).toMatchObject({ error: "Idempotency key reused with different parameters" });
  });

  it("scopes keys to the caller: another client address gets its own result", async () => {
    const a = await t.app.inject({ method: "POST", url: "/api/token/generate", payload: body, remoteAddress: "10.1.1.1", headers: { "idempotency-key": "shared" } });
    const b = await t.app.inject({ method: "POST", url: "/api/token/generate", payload: body, remoteAddress: "10.1.1.2", headers: { "idempotency-key": "shared" } });
    expect(json(a).code).not.toBe(json(b).code);
  });

  it("answers 409 while the first request with the key is still running", async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () => post("/api/token/generate", body, { "idempotency-key": "key-race" })));
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const codes = new Set(results.filter((r) => r.statusCode === 200).map((r) => json(r).code));
    expect(codes.size).toBe(1);
    for (const r of results.filter((r) => r.statusCode === 409)) expect(json(r)).toMatchObject({ error: "Request in progress" });
  });

  it("refuses a malformed key", async () => {
    const res = await post("/api/token/generate", body, { "idempotency-key": "x".repeat(300) });
    expect(res.statusCode).toBe(400);
  });
});
