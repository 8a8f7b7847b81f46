// Rotating ENCRYPTION_KEY on the real process (docs/operations.md): provider credentials sealed with the
// old key cannot be read with the new key alone, are read again with the old key in
// ENCRYPTION_KEY_PREVIOUS; `npm run rotate-keys` (dist/rotate-keys.js) re-seals them with the new key,
// prints its counts, exits 1 while a value opens with no configured key, is idempotent, and
// afterwards the old key can be removed.
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "../../src/identity/policy.js";
import { startInstance, type Instance } from "../cluster/cluster.js";
import { registerOwnerOver } from "../support/live-service.js";
import { migratedDataDir, runToExit } from "../support/process.js";

const OLD_KEY = Buffer.alloc(32, 11).toString("base64");
const NEW_KEY = Buffer.alloc(32, 12).toString("hex");
const SECRET = "sk_test_rotation_4242";

describe("ENCRYPTION_KEY rotation", () => {
  // Starts on a migrated embedded database: what is tested is the rotation, not a first start.
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await migratedDataDir("rotation-");
  });
  let instance: Instance | null = null;
  afterAll(async () => {
    await instance?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async (keys: Record<string, string>) => {
    await instance?.stop();
    instance = await startInstance({ DATA_DIR: dataDir, CHECKOUT_TOKEN_SECRET: "rotation-token-secret-0123456789abcdef", LOG_LEVEL: "warn", ...keys }, { timeoutMs: 60_000 });
    return instance;
  };
  const call = async (method: string, url: string, session: string, body?: unknown) => {
    const res = await fetch(instance!.baseUrl + url, {
      method,
      headers: { "content-type": "application/json", "sec-fetch-site": "same-origin", cookie: `${SESSION_COOKIE}=${session}` },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const intentGateway = async (session: string) => {
    const res = await call("GET", "/api/admin/settings", session);
    expect(res.status).toBe(200);
    return { status: res.body.status.intent_gateway, secretKey: res.body.settings.intent_gateway?.secretKey };
  };
  const save = (session: string) => call("POST", "/api/admin/settings", session, { provider: "intent_gateway", settings: { publishableKey: "pk_test_rotation", secretKey: SECRET } });

  // Four starts and three rotate-keys runs on one embedded DATA_DIR: slow on a busy machine, hence the timeout.
  it("old values open only with the old key listed; after rotate-keys they open with the new key alone", { timeout: 360_000 }, async () => {
    await start({ ENCRYPTION_KEY: OLD_KEY });
    const session = await registerOwnerOver(instance!.baseUrl);
    expect((await save(session)).status).toBe(200);
    expect(await intentGateway(session)).toEqual({ status: "configured", secretKey: "sk_…4242" });

    await start({ ENCRYPTION_KEY: NEW_KEY });
    expect((await intentGateway(session)).status).toBe("not_configured");

    await start({ ENCRYPTION_KEY: NEW_KEY, ENCRYPTION_KEY_PREVIOUS: OLD_KEY });
    expect(await intentGateway(session)).toEqual({ status: "configured", secretKey: "sk_…4242" });

    // The embedded database is one process's: rotate-keys runs while the instance is stopped.
    await instance!.stop();
    instance = null;
    const env = { DATA_DIR: dataDir, CHECKOUT_TOKEN_SECRET: "rotation-token-secret-0123456789abcdef" };
    const withoutOld = await runToExit({ ...env, ENCRYPTION_KEY: NEW_KEY }, "dist/rotate-keys.js");
    expect(withoutOld.code, withoutOld.output).toBe(1);
    expect(withoutOld.output).toContain("provider_settings: 0 re-sealed, 0 already current, 1 undecryptable");
    const rotated = await runToExit({ ...env, ENCRYPTION_KEY: NEW_KEY, ENCRYPTION_KEY_PREVIOUS: OLD_KEY }, "dist/rotate-keys.js");
    expect(rotated.code, rotated.output).toBe(0);
    expect(rotated.output).toContain("provider_settings: 1 re-sealed, 0 already current, 0 undecryptable");
    expect(rotated.output).toContain("webhook_endpoints: 0 re-sealed, 0 already current, 0 undecryptable");
    const again = await runToExit({ ...env, ENCRYPTION_KEY: NEW_KEY, ENCRYPTION_KEY_PREVIOUS: OLD_KEY }, "dist/rotate-keys.js");
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain("provider_settings: 0 re-sealed, 1 already current, 0 undecryptable");

    await start({ ENCRYPTION_KEY: NEW_KEY });
    expect(await intentGateway(session)).toEqual({ status: "configured", secretKey: "sk_…4242" });
  });
});
