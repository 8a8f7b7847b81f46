// deploy/systemd/checkout@.service (issue 21 item 9): `systemd-analyze verify` accepts an instance of
// it with no warning (unknown keys and bad values are only warnings there, so the output must be
// empty), `systemd-analyze security --offline` rates its hardening, and it waits for the drain
// before SIGKILL. Only ExecStart's node path is swapped for this machine's. Without systemd-analyze
// (Debian: apt-get install systemd) the checks skip with a message.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const analyze = spawnSync("systemd-analyze", ["--version"]).status === 0;
if (!analyze) console.warn("test/deploy/systemd: systemd-analyze not found (apt-get install systemd): verify and security checks skipped");

const shipped = readFileSync("deploy/systemd/checkout@.service", "utf8");
const dir = mkdtempSync(path.join(tmpdir(), "systemd-unit-"));
const unit = path.join(dir, "checkout@3001.service");
writeFileSync(path.join(dir, "checkout@.service"), shipped.replace("ExecStart=/usr/bin/node ", `ExecStart=${process.execPath} `));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const setting = (name: string) => [...shipped.matchAll(new RegExp(`^${name}=(.*)$`, "gm"))].map((m) => m[1]);

describe("the systemd unit", () => {
  it.skipIf(!analyze)("passes systemd-analyze verify without a warning", () => {
    const verify = spawnSync("systemd-analyze", ["verify", unit], { encoding: "utf8" });
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout + verify.stderr).toBe("");
  });

  it.skipIf(!analyze)("is rated OK by systemd-analyze security (exposure at most 2.0 of 10)", () => {
    const security = spawnSync("systemd-analyze", ["security", "--offline=yes", "--no-pager", unit], { encoding: "utf8" });
    const exposure = /Overall exposure level for checkout@3001\.service: ([\d.]+)/.exec(security.stdout);
    expect(exposure, security.stdout + security.stderr).not.toBeNull();
    expect(Number(exposure![1])).toBeLessThanOrEqual(2.0);
  });

  it("runs one instance per port from its env files, and outlasts the drain before SIGKILL", () => {
    expect(setting("EnvironmentFile")).toEqual(["/etc/checkout/checkout.env", "/etc/checkout/%i.env"]);
    expect(setting("Environment")[0]).toContain("PORT=%i");
    expect(setting("KillSignal")).toEqual(["SIGTERM"]);
    // SHUTDOWN_DRAIN_SECONDS (5 by default) + the 10 s main.ts gives in-flight work.
    expect(Number(/^(\d+)s$/.exec(setting("TimeoutStopSec")[0]!)?.[1])).toBeGreaterThan(5 + 10);
    for (const hardening of ["NoNewPrivileges=yes", "ProtectSystem=strict", "ProtectHome=yes", "PrivateTmp=yes", "CapabilityBoundingSet=\n", "ReadWritePaths=/var/lib/checkout"]) {
      expect(shipped).toContain(hardening);
    }
  });
});
