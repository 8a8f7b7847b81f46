// Issue 18 item 9: a short link `/c/<code>` that is unknown or rate limited answers a readable HTML
// page (404 / 429 with Retry-After) to a browser, and the JSON error to an API client, by Accept.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { post } from "../support/checkout.js";

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { RATE_LIMIT_ANONYMOUS: "8" } });
});
afterAll(() => t.close());

const open = (code: string, accept?: string) => t.app.inject({ method: "GET", url: `/c/${code}`, headers: accept ? { accept } : {} });

describe("GET /c/<code> for browsers and API clients", () => {
  it("unknown code: a 'link not found' page for a browser, the JSON error for an API client", async () => {
    const page = await open("unknown-code-123", BROWSER_ACCEPT);
    expect(page.statusCode).toBe(404);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body).toContain("<h1>Link not found</h1>");
    expect(page.body).not.toContain("unknown-code-123");

    for (const accept of ["application/json", "*/*", undefined, "application/json, text/html;q=0.5"]) {
      const api = await open("unknown-code-123", accept);
      expect(api.statusCode).toBe(404);
      expect(api.headers["content-type"]).toMatch(/^application\/json/);
      expect(json(api)).toMatchObject({ error: "Checkout link not found", code: "NOT_FOUND" });
    }
  });

  it("a known code still redirects a browser to the checkout page", async () => {
    const out = json(await post(t, "/api/token/generate", {}));
    const res = await open(out.code, BROWSER_ACCEPT);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/checkout/${out.token}`);
  });

  // Last: it uses up the client's window.
  it("rate limited: a 'too many requests, try again in N seconds' page with 429 and Retry-After; JSON for API clients", async () => {
    let page = await open("unknown-code-123", BROWSER_ACCEPT);
    for (let i = 0; i < 20 && page.statusCode !== 429; i++) page = await open("unknown-code-123", BROWSER_ACCEPT);
    expect(page.statusCode).toBe(429);
    const seconds = Number(page.headers["retry-after"]);
    expect(seconds).toBeGreaterThan(0);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.body).toContain("<h1>Too many requests</h1>");
    expect(page.body).toContain(`try again in ${seconds} second`);

    const api = await open("unknown-code-123", "application/json");
    expect(api.statusCode).toBe(429);
    expect(json(api)).toMatchObject({ code: "RATE_LIMITED" });
  });
});
