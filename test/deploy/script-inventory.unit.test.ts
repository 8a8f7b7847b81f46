// Issue 21 item 6 (PCI DSS 4.0 6.4.3): `npm run script-inventory` lists every script the payment pages
// load, from the build, with hashes that match the served files, and the pages have no inline script
// (the CSP allows scripts only from the service's origin). Needs the web build (npm test builds first).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const built = existsSync("web/dist/checkout.html");
if (!built) console.warn("test/deploy/script-inventory: web/dist missing (npm run build): skipped");

describe.skipIf(!built)("payment-page script inventory", () => {
  it("lists every script the checkout and upsell pages load, each with its file's SHA-384, and no inline script", () => {
    const run = spawnSync(process.execPath, ["scripts/script-inventory.mjs", "--json"], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    const inventory = JSON.parse(run.stdout) as { page: string; html: string; inline: string[]; scripts: { url: string; integrity: string }[] }[];
    expect(inventory.map((p) => p.page)).toEqual(["/checkout/<token>", "/upsell/<sessionId>"]);
    for (const page of inventory) {
      expect(page.inline).toEqual([]);
      const html = readFileSync(`web/dist/${page.html}`, "utf8");
      const tags = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
      expect(tags.length).toBeGreaterThan(0);
      for (const src of tags) expect(page.scripts.map((s) => s.url)).toContain(src);
      for (const script of page.scripts) {
        const digest = createHash("sha384").update(readFileSync(`web/dist${script.url}`)).digest("base64");
        expect(script.integrity).toBe(`sha384-${digest}`);
      }
    }
  });
});
