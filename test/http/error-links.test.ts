// Every error answer, whoever sends it, carries `requestId` (its X-Request-Id) and a `docUrl` whose
// anchor GET /docs/errors holds; the page lists every code of the catalogue (issue 33 item 4).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERROR_CODES } from "../../src/http/error-codes.js";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { call, registerUser } from "../support/identity.js";
import { bearer } from "../support/merchant.js";

let t: TestApp;
let page: string;
beforeAll(async () => {
  t = await buildTestApp();
  page = (await t.app.inject({ method: "GET", url: "/docs/errors" })).body;
});
afterAll(() => t.close());

const post = (url: string, payload: string | object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: "POST", url, payload, headers: { "content-type": "application/json", ...headers } });

/** The answer's body carries its own request id and a link to an anchor the errors page has. */
function expectLinked(res: Awaited<ReturnType<typeof post>>, code: string) {
  const body = json(res);
  expect(body).toMatchObject({ code, requestId: res.headers["x-request-id"], docUrl: `http://checkout.test/docs/errors#${code}` });
  expect(typeof body.error).toBe("string");
  expect(page).toContain(`id="${code}"`);
}

describe("error links", () => {
  it("serves the errors page: HTML, one anchor per catalogue code with its status, meaning and fix, nothing to run", async () => {
    const res = await t.app.inject({ method: "GET", url: "/docs/errors" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/html");
    expect(res.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(res.body).not.toMatch(/<script|<style| style=/);
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      const section = res.body.slice(res.body.indexOf(`<section id="${code}">`));
      expect(section, code).toContain(`<dd>${entry.status}</dd>`);
      expect(section.slice(0, section.indexOf("</section>")), code).toContain("What to do");
    }
    expect(res.body.match(/<section id="/g)?.length).toBe(Object.keys(ERROR_CODES).length);
  });

  it("links a validation error (400)", async () => {
    const res = await post("/api/checkout/initialize", { token: "x", provider: "paypal" }, { "x-request-id": "req-validation-1" });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ details: "provider", requestId: "req-validation-1" });
    expectLinked(res, "VALIDATION_ERROR");
  });

  it("links an unknown path (404)", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/nope" });
    expect(res.statusCode).toBe(404);
    expectLinked(res, "NOT_FOUND");
  });

  it("links a domain error: an unknown API key (401)", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/v1/orders", headers: bearer(`sk_${"x".repeat(40)}`) });
    expect(res.statusCode).toBe(401);
    expectLinked(res, "UNAUTHORIZED");
  });

  it("links body errors: too large (413), not JSON (415), malformed (400)", async () => {
    const large = await post("/api/token/generate", JSON.stringify({ orderInfo: { productName: "x".repeat(1024 * 1024) } }));
    expect(large.statusCode).toBe(413);
    expectLinked(large, "PAYLOAD_TOO_LARGE");
    const text = await t.app.inject({ method: "POST", url: "/api/token/generate", payload: "a=b", headers: { "content-type": "text/plain" } });
    expect(text.statusCode).toBe(415);
    expectLinked(text, "UNSUPPORTED_MEDIA_TYPE");
    const malformed = await post("/api/token/generate", '{"orderInfo": ');
    expect(malformed.statusCode).toBe(400);
    expectLinked(malformed, "INVALID_JSON");
  });

  it("links the router's own errors: a URL too long (414) and one not valid UTF-8 (400)", async () => {
    const long = await t.app.inject({ method: "GET", url: `/api/upsell/session/${"a".repeat(1000)}` });
    expect(long.statusCode).toBe(414);
    expectLinked(long, "BAD_REQUEST");
    const invalid = await t.app.inject({ method: "GET", url: "/api/upsell/session/%ED%A0%80", headers: { "x-request-id": "req-bad-url" } });
    expect(invalid.statusCode).toBe(400);
    expect(json(invalid)).toMatchObject({ details: "url", requestId: "req-bad-url" });
    expectLinked(invalid, "BAD_REQUEST");
  });

  it("links the Origin rule's refusal (403) and says what to send", async () => {
    const user = await registerUser(t);
    const res = await t.app.inject({ method: "DELETE", url: "/api/admin/auth", cookies: { admin_session: user.session } });
    expect(res.statusCode).toBe(403);
    expectLinked(res, "CSRF_REJECTED");
    expect(json(res).details).toContain("Origin: http://checkout.test");
    // As the details say: with the header, the same request goes through.
    expect((await call(t, "DELETE", "/api/admin/auth", { session: user.session, headers: { origin: "http://checkout.test" } })).statusCode).toBe(200);
  });

  it("links an Idempotency-Key refusal (422), and a replayed error gets the replay's own request id", async () => {
    const body = { orderInfo: { orderId: "links-1", total: 1500, currency: "USD", productName: "Mug" } };
    await post("/api/token/generate", body, { "idempotency-key": "links-key" });
    const reused = await post("/api/token/generate", { ...body, orderInfo: { ...body.orderInfo, total: 1600 } }, { "idempotency-key": "links-key" });
    expect(reused.statusCode).toBe(422);
    expectLinked(reused, "IDEMPOTENCY_KEY_REUSED");

    const bad = { token: "not-a-token", provider: "intent_gateway" };
    const first = await post("/api/checkout/initialize", bad, { "idempotency-key": "links-bad", "x-request-id": "first-try" });
    const again = await post("/api/checkout/initialize", bad, { "idempotency-key": "links-bad", "x-request-id": "second-try" });
    expect(first.statusCode).toBe(401);
    expect(again.statusCode).toBe(401);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(json(first)).toMatchObject({ code: "INVALID_TOKEN", requestId: "first-try" });
    expect(json(again)).toMatchObject({ code: "INVALID_TOKEN", requestId: "second-try", docUrl: json(first).docUrl });
  });

  it("links a rate-limit refusal (429)", async () => {
    const limited = await buildTestApp({ env: { RATE_LIMIT_ANONYMOUS: "1" } });
    try {
      await limited.app.inject({ method: "GET", url: "/api/nope" });
      const res = await limited.app.inject({ method: "GET", url: "/api/nope" });
      expect(res.statusCode).toBe(429);
      expect(json(res)).toMatchObject({ code: "RATE_LIMITED", requestId: res.headers["x-request-id"], docUrl: "http://checkout.test/docs/errors#RATE_LIMITED" });
    } finally {
      await limited.close();
    }
  });
});
