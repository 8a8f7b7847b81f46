// Issue 16 hole 1 (CONTRACT §36): outgoing URLs taken from provider and integration settings pass
// the webhook URL guard: refused at save with 400 naming the field, refused again on every
// connection (a row saved before the check, or a name that resolves privately later, reaches
// nothing), redirects not followed, answers capped, failures logged with host and status, never the key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { adminCall, registerOwner, type Registered } from "../support/admin.js";
import { startHttpFake, type FakeRequest } from "../../src/lib/testing/fake-http.js";
import { splitForStorage, upsertProviderSettings } from "../../src/providers/settings-store.js";
import type { SettingsProvider } from "../../src/providers/catalog.js";

let guarded: TestApp;
let open: TestApp;
let target: { baseUrl: string; port: string; requests: FakeRequest[]; answer: (request: FakeRequest) => { status: number; body: string; headers?: Record<string, string> }; close(): Promise<void> };
let owner: Registered;
let openOwner: Registered;

beforeAll(async () => {
  const requests: FakeRequest[] = [];
  const state = { answer: (_request: FakeRequest) => ({ status: 200, body: JSON.stringify({ data: [{ id: "L1", attributes: { name: "Internal list" } }], links: { next: null } }) }) as { status: number; body: string; headers?: Record<string, string> } };
  const server = await startHttpFake((request, response) => {
    requests.push(request);
    const { status, body, headers } = state.answer(request);
    response.writeHead(status, { "content-type": "application/json", ...headers });
    response.end(body);
  });
  target = Object.assign(state, { baseUrl: server.baseUrl, port: new URL(server.baseUrl).port, requests, close: server.close });
  guarded = await buildTestApp();
  open = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true", INTEGRATION_TIMEOUT_MS: "2000" } });
  owner = await registerOwner(guarded, "SSRF attacker");
  openOwner = await registerOwner(open, "Lists owner");
});
afterAll(async () => {
  await Promise.all([guarded?.close(), open?.close()]);
  await target?.close();
});

const save = (t: TestApp, session: string, provider: string, settings: Record<string, unknown>) => adminCall(t, "POST", "/api/admin/settings", { session, body: { provider, settings } });

/** A settings row as one saved before the guard existed: straight into the table. */
async function storeUnchecked(t: TestApp, brandId: string, provider: SettingsProvider, values: Record<string, unknown>) {
  const stored = splitForStorage(provider, values, t.deps.config.encryptionKey);
  await upsertProviderSettings(t.deps.database.db, { brandId, provider, enabled: true, ...stored, updatedAt: new Date(t.clock.now()) });
  t.deps.providers.invalidate(brandId);
}

describe("at save", () => {
  it("refuses loopback, metadata, private, documentation, benchmarking, CGNAT, mapped and resolving-to-loopback base URLs for every provider and integration", async () => {
    const refused = [
      `http://127.0.0.1:${target.port}`,
      "http://169.254.169.254/latest",
      "http://10.1.2.3",
      "http://192.0.2.2",
      "http://198.18.0.1",
      "http://100.64.0.1",
      "http://224.0.0.1",
      `http://[::1]:${target.port}`,
      `http://[::ffff:127.0.0.1]:${target.port}`,
      "http://[fd00:ec2::254]",
      `http://localhost:${target.port}`,
    ];
    const providers: [string, Record<string, unknown>][] = [
      ["email_list_a", { apiKey: "pk_attacker_0001" }],
      ["email_list_b", { apiKey: "key-us1" }],
      ["sms_segments", { apiKey: "sms_attacker" }],
      ["cart_gateway", { apiKey: "cart_attacker" }],
      ["intent_gateway", { publishableKey: "pk_x", secretKey: "sk_x" }],
      ["vault_gateway_b", { securityKey: "sec_x" }],
      ["order_crm_a", { apiUsername: "u", apiPassword: "p", campaignId: "1" }],
      ["hosted_store", { shopDomain: "shop.example", accessToken: "shpat_x" }],
    ];
    for (const [provider, settings] of providers) {
      for (const baseUrl of refused) {
        const res = await save(guarded, owner.session, provider, { ...settings, baseUrl });
        expect(res.statusCode, `${provider} ${baseUrl}: ${res.body}`).toBe(400);
        expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "settings.baseUrl" });
      }
    }
    // The shop domain becomes https://<shopDomain>: the same guard.
    const shop = await save(guarded, owner.session, "hosted_store", { shopDomain: `127.0.0.1:${target.port}`, accessToken: "shpat_x" });
    expect(shop.statusCode, shop.body).toBe(400);
    expect(json(shop)).toMatchObject({ code: "VALIDATION_ERROR", details: "settings.shopDomain" });
    // Nothing was stored: the brand's lists are still "not configured".
    expect((await adminCall(guarded, "GET", "/api/admin/email_list_a/lists", { session: owner.session })).statusCode).toBe(400);
    // A public address passes.
    expect((await save(guarded, owner.session, "sms_segments", { apiKey: "sms_ok", baseUrl: "https://93.184.215.14" })).statusCode).toBe(200);
    expect(target.requests).toHaveLength(0);
  });
});

describe("on every connection", () => {
  it("a stored loopback base URL (a name resolving to 127.0.0.1, or a literal) reaches nothing: lists 500, test-crm 502", async () => {
    target.requests.length = 0;
    await storeUnchecked(guarded, owner.brandId, "email_list_a", { apiKey: "pk_stored_before_9999", baseUrl: `http://localhost:${target.port}` });
    const lists = await adminCall(guarded, "GET", "/api/admin/email_list_a/lists", { session: owner.session });
    expect(lists.statusCode, lists.body).toBe(500);
    expect(json(lists)).toMatchObject({ error: "Failed to fetch lists" });

    await storeUnchecked(guarded, owner.brandId, "sms_segments", { apiKey: "sms_stored_before_9999", baseUrl: `http://127.0.0.1:${target.port}` });
    expect((await adminCall(guarded, "GET", "/api/admin/sms_segments/lists", { session: owner.session })).statusCode).toBe(500);

    await storeUnchecked(guarded, owner.brandId, "cart_gateway", { apiKey: "cart_stored_before_9999", baseUrl: `http://localhost:${target.port}` });
    const crm = await adminCall(guarded, "POST", "/api/admin/test-crm", { session: owner.session, body: { provider: "cart_gateway" } });
    expect(crm.statusCode, crm.body).toBe(502);

    expect(target.requests).toHaveLength(0);
    expect(guarded.logs.join("")).toMatch(/refused/);
  });
});

describe("answers (ALLOW_PRIVATE_WEBHOOK_URLS=true, to reach the fake)", () => {
  it("does not follow a redirect, and refuses an answer over the size cap", async () => {
    await save(open, openOwner.session, "email_list_a", { apiKey: "pk_redirect_1234", baseUrl: target.baseUrl });
    target.requests.length = 0;
    target.answer = (request) => (request.path.startsWith("/moved") ? { status: 200, body: JSON.stringify({ data: [], links: {} }) } : { status: 302, body: "", headers: { location: `${target.baseUrl}/moved/api/lists/` } });
    expect((await adminCall(open, "GET", "/api/admin/email_list_a/lists", { session: openOwner.session })).statusCode).toBe(500);
    expect(target.requests.map((r) => r.path)).toEqual(["/api/lists/"]);

    const huge = JSON.stringify({ data: Array.from({ length: 40_000 }, (_, i) => ({ id: `L${i}`, attributes: { name: `List number ${i} with a long name` } })), links: { next: null } });
    expect(huge.length).toBeGreaterThan(2 * 1024 * 1024);
    target.answer = () => ({ status: 200, body: huge });
    const res = await adminCall(open, "GET", "/api/admin/email_list_a/lists", { session: openOwner.session });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(500);
    expect(json(res)).toMatchObject({ error: "Failed to fetch lists" });
  });

  it("logs which host answered what, never the API key (departure 5, hole 5)", async () => {
    await save(open, openOwner.session, "email_list_b", { apiKey: "secretlistkey0123456789-us21", baseUrl: target.baseUrl });
    target.answer = () => ({ status: 503, body: JSON.stringify({ error: "down" }) });
    const before = open.logs.length;
    const res = await adminCall(open, "GET", "/api/admin/email_list_b/lists", { session: openOwner.session });
    expect(res.statusCode).toBe(500);
    expect(json(res)).toMatchObject({ error: "Failed to fetch lists" });
    const logged = open.logs.slice(before).join("");
    const failure = logged.split("\n").find((line) => line.includes("marketing lists fetch failed"));
    expect(failure, logged).toBeDefined();
    const entry = JSON.parse(failure!);
    expect(entry).toMatchObject({ source: "email_list_b", host: `127.0.0.1:${target.port}`, status: 503 });
    expect(logged).not.toContain("secretlistkey0123456789");
    expect(logged).not.toContain(Buffer.from("anystring:secretlistkey0123456789-us21").toString("base64"));
  });
});
