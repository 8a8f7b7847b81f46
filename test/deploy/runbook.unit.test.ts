// The runbook (docs/operations.md "Runbook") as an operator types it on a minimal Debian 12 (issue 31
// item 15): no `sudo` (not installed there), the first owner registers on a page the service serves,
// and the restore drill's environment points at the drill database whatever DATABASE_URL carries
// after its path: its lines are run here as written, on a copy of checkout.env in a temporary folder.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

const doc = readFileSync("docs/operations.md", "utf8");
const runbook = doc.slice(doc.indexOf("## Runbook"), doc.indexOf("\n## ", doc.indexOf("## Runbook") + 1));
const section = (heading: string) => runbook.slice(runbook.indexOf(heading), runbook.indexOf("\n### ", runbook.indexOf(heading) + 1));

describe("the runbook", () => {
  it("runs nothing through sudo (a minimal Debian 12 has none)", () => {
    const commands = runbook.split("```sh").slice(1).map((block) => block.split("```")[0]!).join("\n");
    expect(commands.length).toBeGreaterThan(1_000);
    expect(commands.split("\n").filter((line) => /\bsudo\b/.test(line))).toEqual([]);
  });

  it("sends the first owner to a page the service serves", () => {
    const urls = [...section("### 3.").matchAll(/https:\/\/\$DOMAIN(\/[a-z/-]*)/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(0);
    const pages = readFileSync("src/pages/routes.ts", "utf8");
    for (const url of urls) expect(pages, `${url} is not a page of src/pages/routes.ts`).toContain(`appPage("${url}"`);
  });

  describe("restore drill: the drill's environment", () => {
    // From the first command reading checkout.env to the one before the chown of drill.env.
    const block = section("### 9.").split("```sh")[1]!.split("```")[0]!.split("\n");
    const first = block.findIndex((line) => !line.startsWith("#") && line.includes("/etc/checkout/checkout.env"));
    const last = block.findIndex((line) => line.startsWith("chown root:checkout /etc/checkout/drill.env"));
    const lines = block.slice(first, last).join("\n");

    for (const production of ["postgres://checkout:s3cret@db.internal:5432/checkout?sslmode=require", "postgres://checkout:s3cret@127.0.0.1:5432/checkout"]) {
      it(`points at checkout_drill for DATABASE_URL=${production.replace(/:[^:@/]+@/, ":…@")}`, () => {
        expect(first).toBeGreaterThanOrEqual(0);
        expect(last).toBeGreaterThan(first);
        const dir = mkdtempSync(path.join(tmpdir(), "runbook-"));
        try {
          writeFileSync(path.join(dir, "checkout.env"), `DATABASE_URL=${production}\nREDIS_URL=redis://127.0.0.1:6379\nPUBLIC_BASE_URL=https://checkout.example.com\nPAYMENT_MODE=live\n`);
          const run = spawnSync("bash", ["-euo", "pipefail", "-c", lines.replaceAll("/etc/checkout/", `${dir}/`)], { encoding: "utf8", env: { PATH: process.env.PATH } });
          expect(run.status, run.stderr).toBe(0);
          const env = readFileSync(path.join(dir, "drill.env"), "utf8");
          // What `set -a; . drill.env` leaves: the last assignment of each name.
          const last = (name: string) => env.split("\n").filter((line) => line.startsWith(`${name}=`)).at(-1)?.slice(name.length + 1);
          const expected = new URL(production);
          expected.pathname = "/checkout_drill";
          expect(last("DATABASE_URL")).toBe(expected.href);
          expect(env).not.toContain(production + "\n");
          expect(last("WORKERS")).toBe("off");
          expect(last("PUBLIC_BASE_URL")).toBe("http://127.0.0.1:3999");
          expect(last("REDIS_URL")).toBe("redis://127.0.0.1:6379");
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  });
});
