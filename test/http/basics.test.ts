// The cross-cutting HTTP contract: health, unknown paths, request ids, rate-limit headers, OpenAPI.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe("service basics", () => {
  it("answers /healthz with 200 ok while the database is reachable", async () => {
    const res = await t.app.inject({ method: "GET", url: "/healthz" });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ status: "ok" });
  });

  it("answers an unknown path with a JSON 404", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/nope" });
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ error: "Not found", code: "NOT_FOUND" });
  });

  it("echoes a caller's X-Request-Id and generates one otherwise", async () => {
    const given = await t.app.inject({ method: "GET", url: "/healthz", headers: { "x-request-id": "abc-123" } });
    expect(given.headers["x-request-id"]).toBe("abc-123");
    const generated = await t.app.inject({ method: "GET", url: "/healthz" });
    expect(generated.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const hostile = await t.app.inject({ method: "GET", url: "/healthz", headers: { "x-request-id": "bad id\nwith newline" } });
    expect(hostile.headers["x-request-id"]).not.toContain("bad id");
  });

  it("logs one line per request with its request id and the route pattern, never the raw path", async () => {
    const response = await t.app.inject({ method: "GET", url: "/c/secret-short-code-1", headers: { "x-request-id": "log-line-1" } });
    const lines = t.logs
      .flatMap((chunk) => chunk.split("\n"))
      .filter((line) => line.includes('"msg":"request"'))
      .map((line) => JSON.parse(line));
    const mine = lines.filter((line) => line.requestId === "log-line-1");
    expect(mine).toEqual([expect.objectContaining({ level: 30, method: "GET", route: "/c/:code", status: response.statusCode, client: "127.0.0.1" })]);
    expect(typeof mine[0].ms).toBe("number");
    expect(t.logs.join("")).not.toContain("secret-short-code-1");
  });

  it("sends X-RateLimit headers with the reset as a Unix timestamp in seconds", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/nope" });
    expect(Number(res.headers["x-ratelimit-limit"])).toBe(100000);
    expect(Number(res.headers["x-ratelimit-remaining"])).toBeLessThan(100000);
    const reset = Number(res.headers["x-ratelimit-reset"]);
    const nowSeconds = t.clock.now() / 1000;
    expect(reset).toBeGreaterThan(nowSeconds);
    expect(reset).toBeLessThanOrEqual(nowSeconds + 60);
  });

  it("serves the generated OpenAPI document and its browser", async () => {
    const doc = await t.app.inject({ method: "GET", url: "/openapi.json" });
    expect(doc.statusCode).toBe(200);
    expect(json(doc).openapi).toBe("3.1.0");
    const ui = await t.app.inject({ method: "GET", url: "/docs/" });
    expect(ui.statusCode).toBe(200);
    expect(ui.headers["content-type"]).toContain("text/html");
  });
});
