// CONTRACT §6 pages: each page route answers 200 HTML (the checkout page its own entry, with no
// Referer leaking the token), hashed assets are cached for a year, and neither counts against the
// API's rate limit. Needs the built front end (npm run build; npm test builds it).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { orderClaims, signToken } from "../../test/support/checkout.js";
import { WEB_DIST } from "./shells.js";

let t: TestApp;
beforeAll(async () => {
  // An anonymous limit of 3 per minute: the page loads below exceed it many times over.
  t = await buildTestApp({ env: { RATE_LIMIT_ANONYMOUS: "3" } });
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: "GET", url });
const manifest = () => JSON.parse(readFileSync(join(WEB_DIST, ".vite/manifest.json"), "utf8")) as Record<string, { file: string; css?: string[]; imports?: string[] }>;

describe("page routes", () => {
  it("/checkout/<token> (a real, long JWT) answers the checkout entry's shell without a Referer", async () => {
    const token = await signToken(t, orderClaims());
    expect(token.length).toBeGreaterThan(200);
    const res = await get(`/checkout/${token}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.body).toContain('<div id="root">');
    expect(res.body).toContain(`/${manifest()["checkout.html"].file}`);
    expect(res.body).not.toContain(manifest()["index.html"].file);
  });

  it.each(["/upsell/ups_abc", "/success", "/success?error=session_expired", "/login", "/login?step=2fa&userId=u1", "/portal", "/admin", "/admin/commissions", "/admin/audit"])(
    "%s answers the application shell",
    async (url) => {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(res.body).toContain(`/${manifest()["index.html"].file}`);
    },
  );

  it("hashed assets are served with a year-long immutable cache; unknown assets are 404", async () => {
    const js = await get(`/${manifest()["checkout.html"].file}`);
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toMatch(/javascript/);
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    const css = await get(`/${manifest()["index.html"].css![0]}`);
    expect(css.statusCode).toBe(200);
    expect(css.headers["content-type"]).toMatch(/text\/css/);
    expect((await get("/assets/nothing-here.js")).statusCode).toBe(404);
    const traversal = await get("/assets/..%2f..%2fpackage.json");
    expect([403, 404]).toContain(traversal.statusCode);
    expect(traversal.body).not.toContain("checkout-service");
  });

  it("pages are in the OpenAPI document", async () => {
    const doc = JSON.parse((await get("/openapi.json")).body);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/checkout/{path}", "/upsell/{sessionId}", "/success", "/login", "/admin", "/admin/{path}", "/upsell/action/{action}/{sessionId}"]));
  });

  // Last: it uses up the API's window for the rest of the file.
  it("page and asset loads are not rate-limited; the API still is", async () => {
    for (let i = 0; i < 10; i++) {
      expect((await get("/login")).statusCode).toBe(200);
      expect((await get(`/${manifest()["index.html"].file}`)).statusCode).toBe(200);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await get("/api/upsell/session/ups_missing")).statusCode);
    expect(statuses).toContain(429);
  });

});
