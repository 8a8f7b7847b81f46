// Issue 21 item 4: `npm run package` makes a release that installs with `npm ci --omit=dev
// --ignore-scripts` (no build tools, no dev dependencies) and starts on its own: its migrations, its
// pages, and the commit it was built from (issue 31 item 15: packaged releases reported
// commit="unknown"). Needs `npm run build` (npm test builds first) and the npm cache of the project's `npm ci`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startServer } from "../support/process.js";

const version = (await import("../../package.json", { with: { type: "json" } })).default.version as string;
const folder = path.resolve("release", `checkout-service-${version}`);

describe("the release package", () => {
  it("installs without dev dependencies or scripts and serves the API and the pages", { timeout: 240_000 }, async () => {
    const packaged = spawnSync(process.execPath, ["scripts/package.mjs", "--no-build"], { encoding: "utf8" });
    expect(packaged.status, packaged.stderr).toBe(0);
    expect(existsSync(path.resolve("release", `checkout-service-${version}.tgz`))).toBe(true);
    for (const part of ["dist/main.js", "dist/migrate.js", "dist/rotate-keys.js", "web/dist/index.html", "src/db/migrations/meta/_journal.json", "deploy/nginx/checkout.conf", "deploy/systemd/checkout@.service"]) expect(existsSync(path.join(folder, part)), part).toBe(true);

    const head = spawnSync("git", ["rev-parse", "HEAD"], { encoding: "utf8" }).stdout.trim();
    expect(head).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(path.join(folder, "BUILD_COMMIT"), "utf8").trim()).toBe(head);

    const installed = spawnSync("npm", ["ci", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: folder, encoding: "utf8" });
    expect(installed.status, installed.stderr).toBe(0);
    expect(existsSync(path.join(folder, "node_modules/vitest")), "a dev dependency was installed").toBe(false);

    const server = await startServer({ DATA_DIR: mkdtempSync(path.join(tmpdir(), "pkg-")) }, 120_000, folder);
    try {
      expect((await fetch(`${server.baseUrl}/readyz`)).status).toBe(200);
      const page = await fetch(`${server.baseUrl}/admin`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      const generated = await fetch(`${server.baseUrl}/api/token/generate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ orderInfo: { total: 100, currency: "USD", productName: "Kit" } }) });
      expect(generated.status).toBe(200);
      // The release has no .git: the commit comes from its BUILD_COMMIT file.
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      expect(metrics).toContain(`checkout_build_info{version="${version}",commit="${head}"} 1`);
      expect(server.output()).toContain(`"commit":"${head}"`);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
