// Provider settings per brand (SPEC "Administration: settings", CONTRACT "Provider and integration
// settings", §15): masked answers, sealed storage, merging, role rules and tenancy.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { call, registerUser } from "../../../test/support/identity.js";
import { auditLogs, brands, DEFAULT_BRAND_ID, memberships, providerSettings, sessions } from "../../db/schema/index.js";
import { seal, sha256 } from "../../lib/crypto.js";
import { SETTINGS_PROVIDERS } from "../../providers/catalog.js";

let t: TestApp;
let owner: Awaited<ReturnType<typeof registerUser>>;
let other: Awaited<ReturnType<typeof registerUser>>;
beforeAll(async () => {
  t = await buildTestApp();
  owner = await registerUser(t, { orgName: "First Org" });
  other = await registerUser(t, { orgName: "Second Org" });
});
afterAll(() => t.close());

const SECRET = "sk_test_51Hxyz_VERYSECRET_4242";
const getSettings = (session?: string) => call(t, "GET", "/api/admin/settings", { session });
const postSettings = (session: string | undefined, body: unknown) => call(t, "POST", "/api/admin/settings", { session, body });
const brandOf = async (session: string) => {
  const [row] = await t.deps.database.db.select({ brandId: sessions.brandId }).from(sessions).where(eq(sessions.idHash, sha256(session)));
  return row!.brandId!;
};
const rowOf = async (brandId: string, provider: string) =>
  (await t.deps.database.db.select().from(providerSettings).where(and(eq(providerSettings.brandId, brandId), eq(providerSettings.provider, provider))))[0];

async function memberOf(role: "member" | "admin") {
  const user = await registerUser(t, { orgName: `${role} org` });
  await t.deps.database.db.update(memberships).set({ role }).where(eq(memberships.userId, user.userId));
  return user;
}

describe("GET /api/admin/settings", () => {
  it("lists every provider as not configured for a fresh brand, with categories", async () => {
    const res = await getSettings(owner.session);
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body.brandId).toBe(await brandOf(owner.session));
    expect(body.providers).toEqual([...SETTINGS_PROVIDERS]);
    expect(body.providers).toEqual(expect.arrayContaining(["email_list_a", "email_list_b", "sms_segments"]));
    expect(body.categories).toEqual(["payment", "crm", "analytics"]);
    expect(body.providerCategories).toMatchObject({ intent_gateway: ["payment"], order_crm_a: ["payment", "crm"], cart_gateway: ["payment", "crm"], sms_segments: ["analytics"] });
    for (const p of SETTINGS_PROVIDERS) {
      expect(body.status[p]).toBe("not_configured");
      expect(body.settings[p]).toEqual({ enabled: false });
    }
    // The keys each provider's form shows (not in SPEC; docs/web.md).
    expect(body.fields.intent_gateway).toEqual({ required: ["publishableKey", "secretKey"], optional: ["webhookSecret", "baseUrl"], secrets: ["secretKey", "webhookSecret"], booleans: [] });
    expect(body.fields.order_crm_a).toMatchObject({ required: ["apiUsername", "apiPassword", "campaignId"], booleans: ["failOnCrmError"] });
    expect(Object.keys(body.fields)).toEqual([...SETTINGS_PROVIDERS]);
  });

  it("is open to a member (view-only)", async () => {
    const member = await memberOf("member");
    expect((await getSettings(member.session)).statusCode).toBe(200);
  });

  it("answers 401 without a session", async () => {
    const res = await getSettings();
    expect(res.statusCode).toBe(401);
    expect(json(res).error).toBe("Unauthorized");
  });

  it("answers 400 No brand selected when the session has no brand", async () => {
    const user = await registerUser(t, { orgName: "Brandless" });
    await t.deps.database.db.update(sessions).set({ brandId: null }).where(eq(sessions.idHash, sha256(user.session)));
    const res = await getSettings(user.session);
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ error: "No brand selected", code: "NO_BRAND" });
  });

  it("answers 400 No brand selected when the session's brand was deleted, on GET and POST", async () => {
    const user = await registerUser(t, { orgName: "Deleted brand" });
    await t.deps.database.db.update(brands).set({ deletedAt: new Date() }).where(eq(brands.id, await brandOf(user.session)));
    expect(json(await getSettings(user.session)).code).toBe("NO_BRAND");
    const res = await postSettings(user.session, { provider: "sms_segments", settings: { apiKey: "deleted-brand-key" } });
    expect(res.statusCode).toBe(400);
    expect(json(res).code).toBe("NO_BRAND");
  });
});

describe("POST /api/admin/settings", () => {
  it("stores the secret sealed, answers it masked, and never returns or logs it in full", async () => {
    const res = await postSettings(owner.session, { provider: "intent_gateway", settings: { publishableKey: "pk_test_abc", secretKey: SECRET, unknownKey: "ignored" } });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true, provider: "intent_gateway", mode: "live", status: "configured", settings: { enabled: true, publishableKey: "pk_test_abc", secretKey: "sk_…4242" } });

    const brandId = await brandOf(owner.session);
    const row = await rowOf(brandId, "intent_gateway");
    expect(row!.publicValues).toEqual({ publishableKey: "pk_test_abc" });
    expect(row!.sealedSecrets).toMatch(/^v2:[0-9a-f]{8}:/);
    expect(row!.sealedSecrets).not.toContain(SECRET);
    expect(JSON.stringify(row)).not.toContain("VERYSECRET");

    const listed = await getSettings(owner.session);
    expect(json(listed).status.intent_gateway).toBe("configured");
    expect(json(listed).settings.intent_gateway).toEqual({ enabled: true, publishableKey: "pk_test_abc", secretKey: "sk_…4242" });
    expect(listed.body).not.toContain("VERYSECRET");
    expect(t.logs.join("\n")).not.toContain("VERYSECRET");

    const [audit] = await t.deps.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, "settings.update"), eq(auditLogs.brandId, brandId)));
    expect(audit).toMatchObject({ actorId: owner.userId, resourceId: "intent_gateway", success: true });
    expect(audit!.details).toMatchObject({ provider: "intent_gateway", changedKeys: ["publishableKey", "secretKey"], secretKeysChanged: ["secretKey"] });
    expect(JSON.stringify(audit)).not.toContain("VERYSECRET");
  });

  it("merges: an omitted key keeps its value, an empty string removes it", async () => {
    await postSettings(owner.session, { provider: "order_crm_a", settings: { apiUsername: "u", apiPassword: "crm-password-9876", campaignId: "7", failOnCrmError: true } });
    const kept = await postSettings(owner.session, { provider: "order_crm_a", settings: { campaignId: "8" } });
    expect(json(kept)).toMatchObject({ status: "configured", settings: { apiUsername: "u", apiPassword: "••••9876", campaignId: "8", failOnCrmError: true } });
    const removed = await postSettings(owner.session, { provider: "order_crm_a", settings: { apiPassword: "", enabled: false } });
    expect(json(removed)).toEqual({ success: true, provider: "order_crm_a", mode: "live", status: "not_configured", settings: { enabled: false, apiUsername: "u", campaignId: "8", failOnCrmError: true } });
    const row = await rowOf(await brandOf(owner.session), "order_crm_a");
    expect(row).toMatchObject({ enabled: false, sealedSecrets: null });
  });

  it("masks short secrets completely", async () => {
    const res = await postSettings(owner.session, { provider: "sms_segments", settings: { apiKey: "short" } });
    expect(json(res).settings).toEqual({ enabled: true, apiKey: "••••" });
  });

  it.each([
    [{ provider: "paypal", settings: {} }, "provider"],
    [{ provider: "intent_gateway", settings: { secretKey: 42 } }, "settings.secretKey"],
    [{ provider: "intent_gateway", settings: { enabled: "yes" } }, "settings.enabled"],
    [{ provider: "order_crm_b", settings: { failOnCrmError: "true" } }, "settings.failOnCrmError"],
    [{ provider: "vault_gateway_a", settings: { baseUrl: "ftp://example.com" } }, "settings.baseUrl"],
    [{ provider: "vault_gateway_a", settings: { baseUrl: "not a url" } }, "settings.baseUrl"],
    [{ provider: "intent_gateway" }, "settings"],
  ])("refuses %j with 400 naming %s, storing nothing", async (body, field) => {
    const res = await postSettings(owner.session, body);
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(json(res).details).toContain(field);
    expect(await rowOf(await brandOf(owner.session), "vault_gateway_a")).toBeUndefined();
  });

  it("answers 401 without a session and 403 for a member", async () => {
    const body = { provider: "vault_gateway_b", settings: { securityKey: "member-key-123456" } };
    expect((await postSettings(undefined, body)).statusCode).toBe(401);
    const member = await memberOf("member");
    const res = await postSettings(member.session, body);
    expect(res.statusCode).toBe(403);
    expect(await rowOf(await brandOf(member.session), "vault_gateway_b")).toBeUndefined();
  });

  it("lets an admin store settings", async () => {
    const admin = await memberOf("admin");
    const res = await postSettings(admin.session, { provider: "vault_gateway_b", settings: { securityKey: "admin-key-123456" } });
    expect(json(res)).toMatchObject({ success: true, status: "configured" });
  });

  it("keeps organizations apart: another organization's brand sees none of it", async () => {
    await postSettings(owner.session, { provider: "hosted_store", settings: { shopDomain: "first.myshop.test", accessToken: "shpat_first_token_1111" } });
    const res = await getSettings(other.session);
    expect(json(res).brandId).not.toBe(await brandOf(owner.session));
    expect(json(res).status.hosted_store).toBe("not_configured");
    expect(json(res).settings.hosted_store).toEqual({ enabled: false });
    expect(res.body).not.toContain("first.myshop.test");
  });
});

describe("secrets sealed with a key no longer held", () => {
  it("count as missing: GET answers 200 with the provider not configured, POST stores them again", async () => {
    const user = await registerUser(t, { orgName: "Rotated" });
    const brandId = await brandOf(user.session);
    await t.deps.database.db.insert(providerSettings).values({
      brandId,
      provider: "vault_gateway_a",
      enabled: true,
      publicValues: { baseUrl: "https://gateway.example" },
      sealedSecrets: seal(JSON.stringify({ securityKey: "old-key-123456789" }), Buffer.alloc(32, 1)),
      updatedAt: new Date(),
    });
    const res = await getSettings(user.session);
    expect(res.statusCode).toBe(200);
    expect(json(res).status.vault_gateway_a).toBe("not_configured");
    expect(json(res).settings.vault_gateway_a).toEqual({ enabled: true, baseUrl: "https://gateway.example" });
    const stored = await postSettings(user.session, { provider: "vault_gateway_a", settings: { securityKey: "new-key-123456789" } });
    expect(json(stored)).toMatchObject({ status: "configured", settings: { baseUrl: "https://gateway.example", securityKey: "••••6789" } });
  });
});

describe("GET /api/admin/branding", () => {
  it("answers the default brand's name without authentication", async () => {
    const res = await call(t, "GET", "/api/admin/branding");
    expect(res.statusCode).toBe(200);
    expect(Object.keys(json(res))).toEqual(["companyName"]);
    const [brand] = await t.deps.database.db.select().from(brands).where(eq(brands.id, DEFAULT_BRAND_ID));
    expect(json(res)).toEqual({ companyName: brand!.name });
  });
});

describe("OpenAPI", () => {
  it("documents the settings, branding and CRM utility routes, and every provider's settings keys", async () => {
    const doc = json(await call(t, "GET", "/openapi.json"));
    for (const [path, method, errors] of [
      ["/api/admin/settings", "get", ["400", "401", "403"]],
      ["/api/admin/settings", "post", ["400", "401", "403"]],
      ["/api/admin/branding", "get", []],
      ["/api/admin/test-crm", "post", ["400", "401", "403", "502", "503"]],
      ["/api/admin/crm-retry", "post", ["400", "401", "403", "404", "502", "503"]],
    ] as const) {
      const operation = doc.paths?.[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation.responses["200"]).toBeDefined();
      for (const status of errors) expect(operation.responses[status], `${method} ${path} ${status}`).toBeDefined();
    }
    const body = doc.paths["/api/admin/settings"].post.requestBody.content["application/json"].schema;
    const keys = body.properties.settings.properties;
    for (const key of ["enabled", "publishableKey", "secretKey", "securityKey", "apiUsername", "apiPassword", "campaignId", "shopDomain", "accessToken", "apiKey", "webhookSecret", "baseUrl", "failOnCrmError"]) {
      expect(keys[key], key).toBeDefined();
    }
    expect(keys.secretKey.description).toContain("required by intent_gateway");
    expect(keys.apiKey.description).toContain("email_list_a");
  });
});
