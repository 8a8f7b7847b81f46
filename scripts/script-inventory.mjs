// `npm run script-inventory [-- --json]`: the scripts the payment pages load, from the build in
// web/dist, with their SHA-384 hashes (PCI DSS 4.0 requirement 6.4.3: an inventory of every script
// on a payment page, each authorized and its integrity assured). docs/operations.md "Payment-page
// scripts" says how to use it. Exits 1 when a page has an inline script (the CSP would block it) or
// the build is missing.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const dist = path.join(root, "web/dist");

/** The payment pages and the HTML they are served from (src/pages/routes.ts). */
const PAGES = [
  { page: "/checkout/<token>", html: "checkout.html" },
  { page: "/upsell/<sessionId>", html: "index.html" },
];

const sha384 = (bytes) => `sha384-${createHash("sha384").update(bytes).digest("base64")}`;

/** The scripts an HTML shell loads: <script src>, <link rel=modulepreload>, and every chunk they import, statically or not. */
function scriptsOf(htmlFile) {
  const html = readFileSync(path.join(dist, htmlFile), "utf8");
  const inline = [...html.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).filter((body) => body.trim() !== "");
  const entries = [
    ...[...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => ({ url: m[1], how: "script" })),
    ...[...html.matchAll(/<link\b[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)].map((m) => ({ url: m[1], how: "modulepreload" })),
  ];
  const found = new Map();
  const visit = (url, how) => {
    if (found.has(url)) return;
    if (!url.startsWith("/assets/")) throw new Error(`${htmlFile} loads a script from outside the service: ${url}`);
    const bytes = readFileSync(path.join(dist, url));
    found.set(url, { url, how, bytes: bytes.length, integrity: sha384(bytes) });
    // Vite's chunks import each other by relative path ("./x-hash.js"), statically or with import().
    for (const m of bytes.toString("utf8").matchAll(/(?:from|import)\s*\(?\s*["'](\.\/[\w.-]+\.js)["']/g)) visit(`/assets/${m[1].slice(2)}`, "imported");
  };
  for (const entry of entries) visit(entry.url, entry.how);
  return { scripts: [...found.values()], inline: inline.map((body) => `sha256-${createHash("sha256").update(body).digest("base64")}`) };
}

if (!existsSync(path.join(dist, "checkout.html"))) {
  process.stderr.write("web/dist is missing: run npm run build first\n");
  process.exit(1);
}
const inventory = PAGES.map(({ page, html }) => ({ page, html, ...scriptsOf(html) }));
if (process.argv.includes("--json")) {
  process.stdout.write(`${JSON.stringify(inventory, null, 2)}\n`);
} else {
  for (const { page, html, scripts, inline } of inventory) {
    process.stdout.write(`\n${page} (web/dist/${html})\n\n| script | loaded as | bytes | integrity |\n|---|---|---:|---|\n`);
    for (const s of scripts) process.stdout.write(`| \`${s.url}\` | ${s.how} | ${s.bytes} | \`${s.integrity}\` |\n`);
    process.stdout.write(inline.length === 0 ? "\nInline scripts: none.\n" : `\nInline scripts (blocked by the CSP): ${inline.join(", ")}\n`);
  }
}
if (inventory.some((p) => p.inline.length > 0)) process.exit(1);
