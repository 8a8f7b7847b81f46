// Issue 21 item 6: security headers on every page and API answer (src/http/security-headers.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/app.js";

let http: TestApp;
let https: TestApp;
beforeAll(async () => {
  [http, https] = await Promise.all([buildTestApp(), buildTestApp({ env: { PUBLIC_BASE_URL: "https://pay.example.com" } })]);
});
afterAll(async () => {
  await Promise.all([http?.close(), https?.close()]);
});

const get = (t: TestApp, url: string) => t.app.inject({ method: "GET", url });
const directives = (csp: unknown) => new Map(String(csp).split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values.join(" ")]));

describe("security headers", () => {
  it("give the checkout page a strict CSP, no framing, its own no-referrer and payment allowed", async () => {
    const res = await get(http, "/checkout/a.b.c");
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    const csp = directives(res.headers["content-security-policy"]);
    expect(csp.get("default-src")).toBe("'self'");
    expect(csp.get("script-src")).toBe("'self'");
    expect(csp.get("style-src")).toBe("'self'");
    // http images only where the page itself is http (development): on https they would be mixed content.
    expect(csp.get("img-src")).toBe("'self' http: https: data:");
    expect(directives((await get(https, "/checkout/a.b.c")).headers["content-security-policy"]).get("img-src")).toBe("'self' https: data:");
    expect(csp.get("frame-ancestors")).toBe("'none'");
    expect(csp.get("form-action")).toBe("'self'");
    expect(csp.get("base-uri")).toBe("'none'");
    expect(csp.get("object-src")).toBe("'none'");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
    expect(res.headers["permissions-policy"]).toContain("payment=(self)");
    expect(res.headers["permissions-policy"]).toContain("camera=()");
  });

  it("give the other pages the same CSP, and payment only to the upsell page", async () => {
    for (const url of ["/login", "/admin", "/upsell/ups_x", "/success"]) {
      const res = await get(http, url);
      expect(directives(res.headers["content-security-policy"]).get("frame-ancestors"), url).toBe("'none'");
      expect(res.headers["x-frame-options"], url).toBe("DENY");
      expect(res.headers["permissions-policy"], url).toContain(url.startsWith("/upsell/") ? "payment=(self)" : "payment=()");
    }
  });

  it("put them on API answers, errors and rate-limit refusals too, with the default Referrer-Policy", async () => {
    for (const url of ["/healthz", "/api/nope", "/openapi.json"]) {
      const res = await get(http, url);
      expect(res.headers["content-security-policy"], url).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers["x-content-type-options"], url).toBe("nosniff");
      expect(res.headers["x-frame-options"], url).toBe("DENY");
      expect(res.headers["referrer-policy"], url).toBe("strict-origin-when-cross-origin");
    }
  });

  it("send HSTS only when PUBLIC_BASE_URL is https", async () => {
    expect((await get(https, "/checkout/a.b.c")).headers["strict-transport-security"]).toBe("max-age=31536000");
    expect((await get(https, "/api/nope")).headers["strict-transport-security"]).toBe("max-age=31536000");
    expect((await get(http, "/checkout/a.b.c")).headers["strict-transport-security"]).toBeUndefined();
  });

  it("give Swagger UI (/docs) its own CSP: inline styles, still no framing and scripts only from the service", async () => {
    const res = await get(http, "/docs/");
    expect(res.statusCode).toBe(200);
    const csp = directives(res.headers["content-security-policy"]);
    expect(csp.get("script-src")).toBe("'self'");
    expect(csp.get("style-src")).toBe("'self' 'unsafe-inline'");
    expect(csp.get("frame-ancestors")).toBe("'none'");
  });
});
