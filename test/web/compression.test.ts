// Issue 18 item 10: built assets are served pre-compressed (brotli, gzip) by Accept-Encoding with
// Vary; answers of 1 KB and more are compressed, smaller ones not; the favicon answers 200; and the
// checkout page as a phone fetches it (HTML + every script and style, compressed) stays ≤ 100 KB.
// Needs the built front end (npm run build; npm test builds it).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/app.js";
import { orderClaims, signToken } from "../support/checkout.js";
import { WEB_DIST } from "../../src/pages/shells.js";

const BUDGET_BYTES = 100 * 1024;
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: "GET", url, headers });
const checkoutScript = () => {
  const manifest = JSON.parse(readFileSync(join(WEB_DIST, ".vite/manifest.json"), "utf8")) as Record<string, { file: string }>;
  return `/${manifest["checkout.html"]!.file}`;
};

describe("pre-compressed assets", () => {
  it("brotli when accepted, else gzip, else the plain file; always Vary: Accept-Encoding and the year-long cache", async () => {
    const url = checkoutScript();
    const plain = await get(url);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);

    const br = await get(url, { "accept-encoding": "gzip, deflate, br" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-type"]).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length);

    const gz = await get(url, { "accept-encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
  });
});

describe("compressed answers", () => {
  it("an answer of 1 KB or more (the OpenAPI document) is compressed for a client that accepts it, with Vary", async () => {
    const plain = await get("/openapi.json");
    expect(plain.rawPayload.length).toBeGreaterThan(1024);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);

    const br = await get("/openapi.json", { "accept-encoding": "br, gzip" });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(JSON.parse(plain.body));
    expect(Number(br.headers["content-length"])).toBe(br.rawPayload.length);

    const gz = await get("/openapi.json", { "accept-encoding": "gzip;q=1, br;q=0" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toEqual(JSON.parse(plain.body));

    const none = await get("/openapi.json", { "accept-encoding": "identity" });
    expect(none.headers["content-encoding"]).toBeUndefined();
  });

  it("an answer under 1 KB is sent as it is", async () => {
    const res = await get("/api/upsell/session/ups_missing", { "accept-encoding": "br, gzip" });
    expect(res.statusCode).toBe(404);
    expect(res.rawPayload.length).toBeLessThan(1024);
    expect(res.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(res.body)).toMatchObject({ error: "Session not found" });
  });
});

describe("favicon", () => {
  it.each(["/favicon.ico", "/favicon.svg"])("%s answers the SVG icon", async (url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^image\/svg\+xml/);
    expect(res.body).toContain("<svg");
  });

  it("both HTML entries link it", async () => {
    const token = await signToken(t, orderClaims());
    for (const url of [`/checkout/${token}`, "/success"]) expect((await get(url)).body).toContain('<link rel="icon" href="/favicon.svg"');
  });
});

describe("checkout page transfer size", () => {
  it("HTML + every script and style it loads, fetched with accept-encoding br, gzip, is at most 100 KB", async () => {
    const headers = { "accept-encoding": "br, gzip" };
    const token = await signToken(t, orderClaims());
    const page = await get(`/checkout/${token}`, headers);
    expect(page.statusCode).toBe(200);
    const html = page.headers["content-encoding"] === "br" ? brotliDecompressSync(page.rawPayload).toString() : page.body;
    const urls = [...html.matchAll(/<(?:script|link)\b[^>]*\b(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
    expect(urls.some((u) => u.endsWith(".js"))).toBe(true);
    expect(urls.some((u) => u.endsWith(".css"))).toBe(true);
    // Static imports between chunks are preloaded in the HTML (modulepreload); check that none is missing.
    const sizes = [{ url: "(html)", bytes: page.rawPayload.length }];
    for (const url of urls) {
      const res = await get(url, headers);
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-encoding"]).toBe("br");
      sizes.push({ url, bytes: res.rawPayload.length });
      const text = brotliDecompressSync(res.rawPayload).toString();
      for (const [, imported] of text.matchAll(/from"\.\/([\w-]+\.js)"/g)) expect(urls).toContain(`/assets/${imported}`);
    }
    const total = sizes.reduce((sum, s) => sum + s.bytes, 0);
    console.log(`checkout page transfer: ${total} bytes (${sizes.map((s) => `${s.url} ${s.bytes}`).join(", ")})`);
    expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});
