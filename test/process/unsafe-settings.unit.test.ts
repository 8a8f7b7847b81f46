// Issue 21 item 3: unsafe production settings. With NODE_ENV=production the process refuses to start
// with any of them (stderr names each and how to acknowledge it); ALLOW_UNSAFE naming each lets it
// start, and the log then carries one warning line per setting and the start-up line. Needs
// `npm run build`.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { migratedDataDir, runToExit, startServer } from "../support/process.js";

const SECRETS = { CHECKOUT_TOKEN_SECRET: "p".repeat(40), ENCRYPTION_KEY: Buffer.alloc(32, 3).toString("base64") };
// Every unsafe default at once: test payments, open registration, no SMTP, and TRUST_PROXY=true on 0.0.0.0.
const UNSAFE = { ...SECRETS, NODE_ENV: "production", HOST: "0.0.0.0", TRUST_PROXY: "true" };
const ALL = "payment_mode_test,registration_open,smtp_unset,trust_proxy_true";

describe("unsafe settings in production", () => {
  it("refuses to start, exit 1, naming each unsafe setting and the ALLOW_UNSAFE that would acknowledge it", async () => {
    const { code, output } = await runToExit({ ...UNSAFE, DATA_DIR: mkdtempSync(path.join(tmpdir(), "unsafe-")) });
    expect(code).toBe(1);
    expect(output).toContain("Refusing to start: NODE_ENV=production with 4 unsafe settings");
    expect(output).toContain(`ALLOW_UNSAFE=${ALL}`);
    for (const name of ALL.split(",")) expect(output).toMatch(new RegExp(`^  ${name}: `, "m"));
    expect(output).not.toContain("listening on");
  });

  it("refuses while one of them is still not acknowledged", async () => {
    const { code, output } = await runToExit({ ...UNSAFE, DATA_DIR: mkdtempSync(path.join(tmpdir(), "unsafe-")), ALLOW_UNSAFE: "payment_mode_test,registration_open,smtp_unset" });
    expect(code).toBe(1);
    expect(output).toContain("NODE_ENV=production with 1 unsafe setting (fix each, or acknowledge it with ALLOW_UNSAFE=trust_proxy_true)");
  });

  it("refuses an ALLOW_UNSAFE naming a setting that does not exist", async () => {
    const { code, output } = await runToExit({ ...UNSAFE, DATA_DIR: mkdtempSync(path.join(tmpdir(), "unsafe-")), ALLOW_UNSAFE: `${ALL},payment_mode_tset` });
    expect(code).toBe(1);
    expect(output).toContain("ALLOW_UNSAFE names unknown settings (payment_mode_tset)");
  });

  it("starts once each is acknowledged, with one warning line per setting and the start-up line", async () => {
    const server = await startServer({ ...UNSAFE, DATA_DIR: await migratedDataDir("unsafe-"), ALLOW_UNSAFE: ALL, BUILD_COMMIT: "0123456789abcdef0123456789abcdef01234567" });
    try {
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
      const lines = server.output().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Record<string, any>);
      const warnings = lines.filter((l) => l.unsafe && l.level === 40);
      expect(warnings.map((l) => l.unsafe).sort()).toEqual(ALL.split(",").sort());
      expect(warnings.every((l) => l.acknowledged === true && l.msg.includes("(acknowledged by ALLOW_UNSAFE)"))).toBe(true);
      const start = lines.find((l) => typeof l.msg === "string" && l.msg.startsWith("starting checkout-service"));
      expect(start).toMatchObject({ version: "0.1.0", commit: "0123456789abcdef0123456789abcdef01234567", trustProxy: "true", unsafe: expect.arrayContaining(ALL.split(",")) });
      expect(start!.migrations.applied).toBe(start!.migrations.known);
      expect(start!.migrations.known).toBeGreaterThan(0);
      const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
      expect(metrics).toContain('checkout_build_info{version="0.1.0",commit="0123456789abcdef0123456789abcdef01234567"} 1');
    } finally {
      await server.stop();
    }
  });

  it("outside production the same settings only warn", async () => {
    const { NODE_ENV: _production, ...env } = UNSAFE;
    const server = await startServer({ ...env, DATA_DIR: await migratedDataDir("unsafe-") });
    try {
      expect(server.output()).toContain("unsafe setting trust_proxy_true: TRUST_PROXY=true");
      // On the embedded database the trying-out defaults (test payments, open registration, no SMTP) are meant.
      expect(server.output()).not.toContain("unsafe setting payment_mode_test");
    } finally {
      await server.stop();
    }
  });
});
