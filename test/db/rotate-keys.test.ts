// `npm run rotate-keys` (src/db/sealed-values.ts) on both engines: every sealed value of every table
// (provider settings, brand signing keys, webhook endpoints, TOTP secrets, in the key-naming format
// or the old one) is re-sealed with the current key and counted per table; a second run changes
// nothing; afterwards every value opens with the new key alone (the old key can be removed), except
// the one no configured key opens, which is counted and left alone; a value the service rewrites
// meanwhile is not overwritten (compare-and-set).
import { eq, gt, isNotNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brandSigningKeys, providerSettings, providerTestSettings, users, webhookEndpoints } from "../../src/db/schema/index.js";
import { resealAll, type ResealCounts } from "../../src/db/sealed-values.js";
import { decrypt, encrypt, keyId, seal } from "../../src/lib/crypto.js";
import { adminCall, registerOwner } from "../support/admin.js";
import { buildTestApp, json, type TestApp } from "../support/app.js";

const OLD = Buffer.alloc(32, 7); // buildTestApp's ENCRYPTION_KEY: what the service sealed with
const NEW = Buffer.alloc(32, 8);
const LOST = Buffer.alloc(32, 99);

let t: TestApp;
let owner: Awaited<ReturnType<typeof registerOwner>>;
const plain = new Map<string, string>(); // row → what its sealed value must open to
beforeAll(async () => {
  t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
  owner = await registerOwner(t, "Rotation shop");
  const ok = (res: { statusCode: number; body: string }) => {
    expect(res.statusCode, res.body).toBe(200);
    return json(res as never);
  };
  ok(await adminCall(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider: "intent_gateway", settings: { publishableKey: "pk_test_rot", secretKey: "sk_test_rotation_4242" } } }));
  plain.set(`provider_settings ${owner.brandId}/intent_gateway`, JSON.stringify({ secretKey: "sk_test_rotation_4242" }));
  // Sandbox credentials saved as test credentials (issue 33) are sealed in a table of their own.
  ok(await adminCall(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider: "intent_gateway", mode: "test", settings: { publishableKey: "pk_test_sb", secretKey: "sk_test_sandbox_4242" } } }));
  plain.set(`provider_test_settings ${owner.brandId}/intent_gateway`, JSON.stringify({ secretKey: "sk_test_sandbox_4242" }));
  const signing = ok(await adminCall(t, "POST", "/api/admin/signing-keys", { session: owner.session }));
  plain.set(`brand_signing_keys ${signing.signingKey.kid}`, signing.secret);
  for (const name of ["a", "b", "lost"]) {
    const endpoint = ok(await adminCall(t, "POST", "/api/admin/webhooks", { session: owner.session, body: { name, url: `http://127.0.0.1:9/${name}`, events: ["*"] } }));
    if (name === "lost") await db().update(webhookEndpoints).set({ sealedSecret: seal(endpoint.secret, LOST) }).where(eq(webhookEndpoints.id, endpoint.id));
    else plain.set(`webhook_endpoints ${endpoint.id}`, endpoint.secret);
    // "b" as written before the key-naming format existed.
    if (name === "b") await db().update(webhookEndpoints).set({ sealedSecret: encrypt(endpoint.secret, OLD) }).where(eq(webhookEndpoints.id, endpoint.id));
  }
  const setup = ok(await adminCall(t, "GET", "/api/auth/2fa/setup", { session: owner.session }));
  plain.set(`users.pending ${owner.userId}`, setup.secret);
  // An enabled TOTP secret in the old format.
  await db().update(users).set({ totpSecretSealed: encrypt("JBSWY3DPEHPK3PXP", OLD) }).where(eq(users.id, owner.userId));
  plain.set(`users.totp ${owner.userId}`, "JBSWY3DPEHPK3PXP");
});
afterAll(() => t?.close());
const db = () => t.deps.database.db;

/** Every sealed value, named as in `plain`. */
async function sealedValues(): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  for (const r of await db().select().from(providerSettings).where(isNotNull(providerSettings.sealedSecrets))) values.set(`provider_settings ${r.brandId}/${r.provider}`, r.sealedSecrets!);
  for (const r of await db().select().from(providerTestSettings).where(isNotNull(providerTestSettings.sealedSecrets))) values.set(`provider_test_settings ${r.brandId}/${r.provider}`, r.sealedSecrets!);
  for (const r of await db().select().from(brandSigningKeys)) values.set(`brand_signing_keys ${r.kid}`, r.sealedSecret);
  for (const r of await db().select().from(webhookEndpoints)) values.set(`webhook_endpoints ${r.id}`, r.sealedSecret);
  for (const r of await db().select().from(users)) {
    if (r.totpPendingSecretSealed) values.set(`users.pending ${r.id}`, r.totpPendingSecretSealed);
    if (r.totpSecretSealed) values.set(`users.totp ${r.id}`, r.totpSecretSealed);
  }
  return values;
}
const tally = (c: Partial<ResealCounts>): ResealCounts => ({ resealed: 0, current: 0, undecryptable: 0, changed: 0, ...c });

describe("rotate-keys", () => {
  it("re-seals every value with the current key, counts per table, and a second run finds all current", async () => {
    const first = await resealAll(db(), [NEW, OLD]);
    expect(Object.fromEntries(first)).toEqual({
      provider_settings: tally({ resealed: 1 }),
      provider_test_settings: tally({ resealed: 1 }),
      brand_signing_keys: tally({ resealed: 1 }),
      webhook_endpoints: tally({ resealed: 2, undecryptable: 1 }),
      users: tally({ resealed: 2 }),
    });

    const second = await resealAll(db(), [NEW, OLD]);
    expect(Object.fromEntries(second)).toEqual({
      provider_settings: tally({ current: 1 }),
      provider_test_settings: tally({ current: 1 }),
      brand_signing_keys: tally({ current: 1 }),
      webhook_endpoints: tally({ current: 2, undecryptable: 1 }),
      users: tally({ current: 2 }),
    });

    // The old key can go: every value opens with the new key alone, and names it.
    const values = await sealedValues();
    for (const [name, expected] of plain) {
      expect(values.get(name)!.split(":").slice(0, 2), name).toEqual(["v2", keyId(NEW)]);
      expect(decrypt(values.get(name)!, [NEW]), name).toBe(expected);
    }
    // Only the value no key opened is left as it was.
    const left = [...values.keys()].filter((name) => !plain.has(name));
    expect(left).toHaveLength(1);
    expect(values.get(left[0]!)!.split(":")[1]).toBe(keyId(LOST));
  });

  it("never overwrites a value the service rewrote after it was read", async () => {
    const endpoints = await db().select().from(webhookEndpoints).orderBy(webhookEndpoints.id);
    const openable = endpoints.filter((e) => plain.has(`webhook_endpoints ${e.id}`));
    // Back under the old key, as after a restore.
    for (const e of openable) await db().update(webhookEndpoints).set({ sealedSecret: seal(plain.get(`webhook_endpoints ${e.id}`)!, OLD) }).where(eq(webhookEndpoints.id, e.id));
    const rewritten = new Map<string, string>();
    const counts = await resealAll(db(), [NEW, OLD], async (table, _outcome, id) => {
      if (table !== "webhook_endpoints" || rewritten.size > 0) return;
      // An instance saves a new secret for every later endpoint while the rotation is under way.
      for (const later of await db().select().from(webhookEndpoints).where(gt(webhookEndpoints.id, id))) {
        if (!plain.has(`webhook_endpoints ${later.id}`)) continue;
        const value = seal("whsec_rewritten", NEW);
        await db().update(webhookEndpoints).set({ sealedSecret: value }).where(eq(webhookEndpoints.id, later.id));
        rewritten.set(later.id, value);
      }
    });
    expect(rewritten.size).toBeGreaterThanOrEqual(1);
    expect(counts.get("webhook_endpoints")).toEqual(tally({ resealed: openable.length - rewritten.size, changed: rewritten.size, undecryptable: 1 }));
    for (const [id, value] of rewritten) {
      const [row] = await db().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
      expect(row!.sealedSecret).toBe(value);
    }
  });
});
