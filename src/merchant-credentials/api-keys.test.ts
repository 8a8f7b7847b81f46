// Brand API keys through the admin API (issue 15): created with the secret shown once, stored as a
// hash, listed without secrets, revoked at once on every instance, refused uses audited; a key is
// never an admin session.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../app.js";
import { createRuntime } from "../deps.js";
import { apiKeys, auditLogs } from "../db/schema/index.js";
import type { App } from "../http/types.js";
import { sha256 } from "../lib/crypto.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { addUser, registerOwner, type Registered } from "../../test/support/admin.js";
import { testEngine } from "../../test/support/database.js";
import { call } from "../../test/support/identity.js";
import { bearer, createApiKey, withKey } from "../../test/support/merchant.js";

let t: TestApp;
let owner: Registered;
let other: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  owner = await registerOwner(t, "Key Shop");
  other = await registerOwner(t, "Other Shop");
});
afterAll(async () => {
  await t.close();
});

const checkout = (secret: string | null) =>
  withKey(t, "POST", "/api/v1/checkouts", secret, { orderId: `k-${Math.random().toString(36).slice(2)}`, amount: 1000, currency: "USD", productName: "Thing" });
const dumpTables = async () => JSON.stringify([await t.deps.database.db.select().from(auditLogs), await t.deps.database.db.select().from(apiKeys)]);

describe("API keys", () => {
  it("creates a key with the secret shown once, stored only as its SHA-256, default scopes all six", async () => {
    const res = await call(t, "POST", "/api/admin/api-keys", { session: owner.session, body: { name: "shop server" } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = json(res);
    // Issue 33: a test key by default, and its secret says so.
    expect(body.secret).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(body).toEqual({
      success: true,
      apiKey: { id: expect.any(String), name: "shop server", prefix: body.secret.slice(0, 16), scopes: ["checkouts:write", "orders:read", "orders:refund", "upsell:write", "events:read", "webhooks:write"], mode: "test", livemode: false, apiVersion: "2026-11-28", createdAt: t.clock.now(), lastUsedAt: null },
      secret: body.secret,
    });
    const [row] = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, body.apiKey.id));
    expect(row).toMatchObject({ keyHash: sha256(body.secret), brandId: owner.brandId, organizationId: owner.organizationId });
    expect(JSON.stringify(row)).not.toContain(body.secret);

    const list = await call(t, "GET", "/api/admin/api-keys", { session: owner.session });
    expect(list.statusCode).toBe(200);
    expect(json(list).apiKeys).toContainEqual(body.apiKey);
    expect(list.body).not.toContain(body.secret);
    expect(list.body).not.toContain(row!.keyHash);
  });

  it("lets members list but not create or revoke; another organization's key is a not-found", async () => {
    const member = await addUser(t, owner.session, "member", [owner.brandId]);
    expect((await call(t, "GET", "/api/admin/api-keys", { session: member.session })).statusCode).toBe(200);
    const refused = await call(t, "POST", "/api/admin/api-keys", { session: member.session, body: { name: "x" } });
    expect(refused.statusCode).toBe(403);
    const key = await createApiKey(t, other.session);
    const res = await call(t, "DELETE", `/api/admin/api-keys/${key.id}`, { session: owner.session });
    expect(res.statusCode).toBe(404);
    expect((await checkout(key.secret)).statusCode).toBe(201);
  });

  it("refuses unknown scopes and empty names with 400", async () => {
    for (const body of [{ name: "x", scopes: ["admin:all"] }, { name: "" }, { name: "x", scopes: [] }]) {
      const res = await call(t, "POST", "/api/admin/api-keys", { session: owner.session, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(json(res).code).toBe("VALIDATION_ERROR");
    }
  });

  it("is never an admin session, and a session never a key", async () => {
    const key = await createApiKey(t, owner.session);
    const asAdmin = await t.app.inject({ method: "GET", url: "/api/admin/api-keys", headers: bearer(key.secret) });
    expect(asAdmin.statusCode).toBe(401);
    const created = await t.app.inject({ method: "POST", url: "/api/admin/api-keys", headers: { ...bearer(key.secret), "content-type": "application/json" }, payload: "{\"name\":\"x\"}" });
    expect(created.statusCode).toBe(401);
    const withSession = await call(t, "POST", "/api/v1/checkouts", { session: owner.session, body: { orderId: "s-1", amount: 100, currency: "USD", productName: "x" } });
    expect(withSession.statusCode).toBe(401);
    expect(json(withSession)).toMatchObject({ error: "API key required", code: "UNAUTHORIZED" });
  });

  it("takes the proof its route takes: a key on an administration route is not looked at further (no refusal, no audit, no use); a cookie beside a key", async () => {
    const key = await createApiKey(t, owner.session);
    const refusals = async () => (await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.action, "api_key.refused"))).length;
    const lastUsed = async () => (await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id)))[0]!.lastUsedAt;
    const before = await refusals();
    for (const header of [`Bearer ${key.secret}`, `Bearer sk_${"B".repeat(40)}`, "Bearer nope"]) {
      const res = await t.app.inject({ method: "GET", url: "/api/admin/api-keys", headers: { authorization: header } });
      expect(res.statusCode, header).toBe(401);
      expect(json(res)).toMatchObject({ error: "Unauthorized", code: "UNAUTHORIZED" });
    }
    expect(await refusals()).toBe(before);
    expect(await lastUsed()).toBeNull();
    // With a session too: the administration route acts as the session, /api/v1 as the key.
    const asSession = await call(t, "GET", "/api/admin/api-keys", { session: owner.session, headers: bearer(`sk_${"C".repeat(40)}`) });
    expect(asSession.statusCode).toBe(200);
    expect(await refusals()).toBe(before);
    const asKey = await call(t, "GET", "/api/v1/checkouts/mco_none", { session: other.session, headers: bearer(key.secret) });
    expect(asKey.statusCode).toBe(404);
    expect(await lastUsed()).not.toBeNull();
  });

  it("refuses malformed, unknown and revoked keys alike, and audits each refusal with its reason", async () => {
    const key = await createApiKey(t, owner.session);
    expect((await checkout(key.secret)).statusCode).toBe(201);
    const revoked = await call(t, "DELETE", `/api/admin/api-keys/${key.id}`, { session: owner.session });
    expect(revoked.statusCode).toBe(200);
    expect((await call(t, "DELETE", `/api/admin/api-keys/${key.id}`, { session: owner.session })).statusCode).toBe(404);
    expect(json(await call(t, "GET", "/api/admin/api-keys", { session: owner.session })).apiKeys.map((k: { id: string }) => k.id)).not.toContain(key.id);

    const unknown = `sk_${"A".repeat(40)}`;
    for (const [header, reason] of [[`Bearer ${key.secret}`, "revoked"], [`Bearer ${unknown}`, "unknown"], ["Bearer nope", "malformed"], [`Basic ${key.secret}`, "malformed"]] as const) {
      const res = await t.app.inject({ method: "GET", url: "/api/v1/checkouts/mco_x", headers: { authorization: header } });
      expect(res.statusCode, header).toBe(401);
      expect(json(res)).toMatchObject({ error: "Invalid API key", code: "UNAUTHORIZED" });
      const [last] = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.action, "api_key.refused")).orderBy(auditLogs.createdAt, auditLogs.id);
      expect(last).toBeDefined();
    }
    const refusals = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.action, "api_key.refused"));
    expect(refusals.map((r) => (r.details as { reason: string }).reason).sort()).toEqual(expect.arrayContaining(["malformed", "malformed", "revoked", "unknown"]));
    expect(refusals.find((r) => (r.details as { reason: string }).reason === "revoked")).toMatchObject({ resourceId: key.id, brandId: owner.brandId, success: false });
    const actions = (await t.deps.database.db.select().from(auditLogs)).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(["api_key.create", "api_key.revoke"]));

    // No secret or hash anywhere: the tables, every answer above, the logs.
    const dump = await dumpTables();
    const logs = t.logs.join("\n");
    for (const secret of [key.secret, unknown]) {
      expect(dump).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    const [row] = await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(JSON.stringify(await t.deps.database.db.select().from(auditLogs))).not.toContain(row!.keyHash);
    expect(logs).not.toContain(row!.keyHash);
  });

  it("answers 403 naming the missing scope", async () => {
    const key = await createApiKey(t, owner.session, { scopes: ["orders:read"] });
    const res = await checkout(key.secret);
    expect(res.statusCode).toBe(403);
    expect(json(res)).toMatchObject({ error: "API key lacks scope checkouts:write", code: "FORBIDDEN" });
  });

  it("moves lastUsedAt at most once a minute", async () => {
    const key = await createApiKey(t, owner.session);
    const lastUsed = async () => (await t.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, key.id)))[0]!.lastUsedAt?.getTime();
    const first = t.clock.now();
    await checkout(key.secret);
    expect(await lastUsed()).toBe(first);
    t.clock.advance(30_000);
    await checkout(key.secret);
    expect(await lastUsed()).toBe(first);
    t.clock.advance(31_000);
    await checkout(key.secret);
    expect(await lastUsed()).toBe(t.clock.now());
    const listed = json(await call(t, "GET", "/api/admin/api-keys", { session: owner.session })).apiKeys.find((k: { id: string }) => k.id === key.id);
    expect(listed.lastUsedAt).toBe(t.clock.now());
  });

  it("is refused by a second instance on the same database in the request after the revocation", async () => {
    // PGlite is one in-process database: the second instance shares it. On PostgreSQL it is a second runtime (own pool).
    const second = testEngine === "postgres" ? await createRuntime(t.deps.config, t.clock, t.deps.log, { poolSize: 2 }) : null;
    const deps = second?.deps ?? t.deps;
    const other: App = await buildApp(deps, { rateLimitStore: second?.rateLimitStore ?? t.runtime.rateLimitStore, jobs: "manual" });
    await other.ready();
    try {
      const key = await createApiKey(t, owner.session);
      const get = () => other.inject({ method: "GET", url: "/api/v1/checkouts/mco_none", headers: bearer(key.secret) });
      expect((await get()).statusCode).toBe(404);
      expect((await call(t, "DELETE", `/api/admin/api-keys/${key.id}`, { session: owner.session })).statusCode).toBe(200);
      const after = await get();
      expect(after.statusCode).toBe(401);
      expect(json(after)).toMatchObject({ error: "Invalid API key", code: "UNAUTHORIZED" });
    } finally {
      await other.close();
      await second?.close();
    }
  });
});
