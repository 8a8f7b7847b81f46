// Issue 8's budget: the checkout page's JavaScript and CSS (its entry and everything the entry
// imports) stay at most 100 KB gzipped. Reads the build output (npm run build; npm test builds it).
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { WEB_DIST } from "../../src/pages/shells.js";

const BUDGET_BYTES = 100 * 1024;
type Chunk = { file: string; css?: string[]; imports?: string[] };

/** The files a browser loads for `entry`: its chunk, its CSS, and its static imports, transitively. */
export function filesOf(manifest: Record<string, Chunk>, entry: string, seen = new Set<string>()): Set<string> {
  const chunk = manifest[entry];
  if (!chunk || seen.has(chunk.file)) return seen;
  seen.add(chunk.file);
  for (const css of chunk.css ?? []) seen.add(css);
  for (const imported of chunk.imports ?? []) filesOf(manifest, imported, seen);
  return seen;
}

describe("checkout page budget", () => {
  const manifestPath = join(WEB_DIST, ".vite/manifest.json");

  it("checkout entry JS + CSS ≤ 100 KB gzipped", () => {
    expect(existsSync(manifestPath), `${manifestPath} missing: run npm run build`).toBe(true);
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, Chunk>;
    const files = [...filesOf(manifest, "checkout.html")];
    expect(files.some((f) => f.endsWith(".js"))).toBe(true);
    expect(files.some((f) => f.endsWith(".css"))).toBe(true);
    const sizes = files.map((f) => ({ file: f, gzip: gzipSync(readFileSync(join(WEB_DIST, f)), { level: 9 }).length }));
    const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
    console.log(`checkout page: ${total} bytes gzipped (${sizes.map((s) => `${s.file} ${s.gzip}`).join(", ")})`);
    expect(total).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it("counts imported chunks (a budget that ignored them could not fail)", () => {
    const manifest = { "checkout.html": { file: "a.js", css: ["a.css"], imports: ["_v.js"] }, "_v.js": { file: "v.js", imports: ["_w.js"] }, "_w.js": { file: "w.js" } };
    expect([...filesOf(manifest, "checkout.html")]).toEqual(["a.js", "a.css", "v.js", "w.js"]);
  });
});
