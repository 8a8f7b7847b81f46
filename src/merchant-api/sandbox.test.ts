// Issue 33 item 1: a provider's sandbox credentials saved as TEST credentials. Two fake gateways at the
// network boundary stand for the provider's sandbox and its live service, each accepting only its own
// secret key: a test key's checkout is charged at the sandbox (not in demo), its refund and upsell go
// there too; a live key's never touches the sandbox; a brand with only sandbox credentials has no live
// provider (409 at creation); and the old settings body without `mode` still saves live credentials.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { orderClaims, post } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";
import { bearer, createApiKey, withKey } from "../../test/support/merchant.js";
import { card } from "../../test/support/provider-payments.js";
import { auditLogs, orders, providerSettings, providerTestSettings, refunds } from "../db/schema/index.js";
import { startFakeIntentGateway, type FakeIntentGateway } from "../providers/intent-gateway/fake-server.js";

const AMOUNT = 2500;
let t: TestApp;
let sandbox: FakeIntentGateway;
let live: FakeIntentGateway;
/** Live credentials at `live` and test (sandbox) credentials at `sandbox`. */
let shop: Registered;
/** Only test (sandbox) credentials. */
let sandboxOnly: Registered;
/** Only live credentials (saved with the old body, no `mode`). */
let liveOnly: Registered;

const saveSettings = (owner: Registered, gateway: FakeIntentGateway, mode?: "test" | "live") =>
  call(t, "POST", "/api/admin/settings", {
    session: owner.session,
    body: { provider: "intent_gateway", settings: { publishableKey: "pk_fake", secretKey: gateway.secretKey, baseUrl: gateway.baseUrl }, ...(mode ? { mode } : {}) },
  });

beforeAll(async () => {
  [t, sandbox, live] = await Promise.all([
    buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }),
    startFakeIntentGateway("sk_test_sandbox_secret_key_1111"),
    startFakeIntentGateway("sk_live_real_secret_key_9999"),
  ]);
  await registerOwner(t); // adopts the default brand (the public generator's)
  [shop, sandboxOnly, liveOnly] = [await registerOwner(t), await registerOwner(t), await registerOwner(t)];
  for (const [owner, gateway, mode] of [
    [shop, live, "live"],
    [shop, sandbox, "test"],
    [sandboxOnly, sandbox, "test"],
    [liveOnly, live, undefined],
  ] as const) {
    const saved = await saveSettings(owner, gateway, mode);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(json(saved)).toMatchObject({ success: true, mode: mode ?? "live", status: "configured" });
  }
});
afterAll(async () => {
  await t.close();
  await Promise.all([sandbox.close(), live.close()]);
});

const newOrderId = () => orderClaims().orderId as string;
const createCheckout = (key: string, orderId: string) => withKey(t, "POST", "/api/v1/checkouts", key, { amount: AMOUNT, currency: "USD", productName: "Kit", orderId });
const initialize = (token: string) => post(t, "/api/checkout/initialize", { token, provider: "intent_gateway", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
const confirm = (paymentIntentId: string, fields: object = {}) => post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId, ...fields });
const complete = (orderId: string, intentId: string) =>
  post(t, "/api/checkout/complete", { orderId, transactionId: intentId, providerOrderId: intentId, provider: "intent_gateway", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
const orderRow = async (orderId: string) => (await t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId)))[0];
const paths = (gateway: FakeIntentGateway, from: number) => gateway.requests.slice(from).map((r) => `${r.method} ${r.path.replace(/\/pi_[^/]+/, "/:id")}`);

/** A checkout of `key` initialized, paid at `gateway` (its SDK took the card) and completed. */
async function payAtGateway(key: string, gateway: FakeIntentGateway) {
  const orderId = newOrderId();
  const created = await createCheckout(key, orderId);
  expect(created.statusCode, created.body).toBe(201);
  const init = await initialize(json(created).token);
  expect(init.statusCode, init.body).toBe(200);
  // Not demo: the page shows the provider's own form, not the demo card form.
  expect(json(init)).toMatchObject({ demo: false, providerOrderId: expect.stringMatching(/^pi_fake/) });
  const intentId = json(init).providerOrderId as string;
  gateway.pay(intentId, "pm_card_visa");
  expect((await confirm(intentId)).statusCode).toBe(200);
  const done = await complete(orderId, intentId);
  expect(done.statusCode, done.body).toBe(200);
  return { orderId, intentId, paymentMethodToken: json(done).paymentMethodToken as string };
}

describe("settings: test (sandbox) credentials apart from the live ones", () => {
  it("GET shows both sets, masked; the audit records the mode; the old body without mode saved live ones", async () => {
    const got = json(await call(t, "GET", "/api/admin/settings", { session: shop.session }));
    expect(got.status.intent_gateway).toBe("configured");
    expect(got.testStatus.intent_gateway).toBe("configured");
    expect(got.settings.intent_gateway).toMatchObject({ enabled: true, baseUrl: live.baseUrl, secretKey: "sk_…9999" });
    expect(got.testSettings.intent_gateway).toMatchObject({ enabled: true, baseUrl: sandbox.baseUrl, secretKey: "sk_…1111" });
    expect(JSON.stringify(got)).not.toContain(sandbox.secretKey);

    const old = json(await call(t, "GET", "/api/admin/settings", { session: liveOnly.session }));
    expect(old).toMatchObject({ status: { intent_gateway: "configured" }, testStatus: { intent_gateway: "not_configured" }, testSettings: { intent_gateway: { enabled: false } } });
    const onlySandbox = json(await call(t, "GET", "/api/admin/settings", { session: sandboxOnly.session }));
    expect(onlySandbox).toMatchObject({ status: { intent_gateway: "not_configured" }, testStatus: { intent_gateway: "configured" } });

    const db = t.deps.database.db;
    expect(await db.select().from(providerSettings).where(eq(providerSettings.brandId, sandboxOnly.brandId))).toEqual([]);
    expect(await db.select().from(providerTestSettings).where(eq(providerTestSettings.brandId, liveOnly.brandId))).toEqual([]);
    const audits = await db.select().from(auditLogs).where(and(eq(auditLogs.action, "settings.update"), eq(auditLogs.brandId, shop.brandId)));
    expect(audits.map((a) => (a.details as { mode: string }).mode).sort()).toEqual(["live", "test"]);
    expect(JSON.stringify(audits)).not.toContain(sandbox.secretKey);
  });

  it("refuses test credentials for a marketing list and an unknown mode (400, nothing stored)", async () => {
    const crm = await call(t, "POST", "/api/admin/settings", { session: shop.session, body: { provider: "email_list_a", mode: "test", settings: { apiKey: "k" } } });
    expect(crm.statusCode).toBe(400);
    expect(json(crm)).toMatchObject({ code: "VALIDATION_ERROR", details: "mode" });
    const odd = await call(t, "POST", "/api/admin/settings", { session: shop.session, body: { provider: "intent_gateway", mode: "sandbox", settings: {} } });
    expect(odd.statusCode).toBe(400);
  });
});

describe("test objects go to the sandbox, live ones to the live credentials", () => {
  it("a test key's checkout is charged at the sandbox (test, not demo) and its refund goes there too; the live gateway hears nothing", async () => {
    const testKey = (await createApiKey(t, shop.session, { mode: "test" })).secret;
    const [sandboxSeen, liveSeen] = [sandbox.requests.length, live.requests.length];
    const { orderId } = await payAtGateway(testKey, sandbox);
    expect(await orderRow(orderId)).toMatchObject({ livemode: false, paidInDemo: false });

    const refund = await withKey(t, "POST", `/api/v1/orders/${orderId}/refunds`, testKey, { amount: 500, reason: "requested_by_customer" });
    expect(refund.statusCode, refund.body).toBe(200);
    expect(json(refund).refund).toMatchObject({ status: "succeeded", amount: 500 });
    expect(paths(sandbox, sandboxSeen)).toContain("POST /v1/refunds");
    expect(sandbox.requests.slice(sandboxSeen).every((r) => r.headers.authorization === `Bearer ${sandbox.secretKey}`)).toBe(true);
    expect(live.requests.length).toBe(liveSeen);
    const [stored] = await t.deps.database.db.select().from(refunds).where(eq(refunds.id, json(refund).refund.id));
    expect(stored).toMatchObject({ livemode: false, status: "succeeded" });
  });

  it("a sandbox-paid test order's one-click upsell is charged at the sandbox with its saved method (with the test key: merchant proof)", async () => {
    const testKey = (await createApiKey(t, shop.session, { mode: "test" })).secret;
    const { orderId, paymentMethodToken } = await payAtGateway(testKey, sandbox);
    const [sandboxSeen, liveSeen] = [sandbox.requests.length, live.requests.length];
    const body = { orderId: `${orderId}-up`, originalOrderId: orderId, customerEmail: "ada@example.com", paymentMethodToken, provider: "intent_gateway", offers: [{ id: "a", name: "A", price: 900 }] };
    // Not in the demo ledger: no key-free upsell for it (CONTRACT §35).
    expect((await post(t, "/api/upsell/create-session", body)).statusCode).toBe(401);
    const session = await post(t, "/api/upsell/create-session", body, bearer(testKey));
    expect(session.statusCode, session.body).toBe(200);
    const accepted = await post(t, "/api/upsell/accept", { sessionId: json(session).sessionId, offerId: "a" });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(paths(sandbox, sandboxSeen).length).toBeGreaterThan(0);
    expect(live.requests.length).toBe(liveSeen);
    expect(await orderRow(`${orderId}-up`)).toMatchObject({ livemode: false, paidInDemo: false });
  });

  it("a live key's checkout on the same brand is charged with the live credentials; the sandbox hears nothing", async () => {
    const liveKey = (await createApiKey(t, shop.session, { mode: "live" })).secret;
    const sandboxSeen = sandbox.requests.length;
    const { orderId } = await payAtGateway(liveKey, live);
    expect(await orderRow(orderId)).toMatchObject({ livemode: true, paidInDemo: false });
    expect(sandbox.requests.length).toBe(sandboxSeen);
  });

  it("a brand with only sandbox credentials has no live provider: a live key's checkout is 409 PROVIDER_NOT_CONFIGURED at creation", async () => {
    const liveKey = (await createApiKey(t, sandboxOnly.session, { mode: "live" })).secret;
    const seen = sandbox.requests.length;
    const refused = await createCheckout(liveKey, newOrderId());
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
    expect(sandbox.requests.length).toBe(seen);
    // Its test key is charged at the sandbox.
    const testKey = (await createApiKey(t, sandboxOnly.session, { mode: "test" })).secret;
    const { orderId } = await payAtGateway(testKey, sandbox);
    expect(await orderRow(orderId)).toMatchObject({ livemode: false, paidInDemo: false });
  });

  it("an attacker's view: a test key on a brand with only live credentials stays in demo; the live gateway hears nothing", async () => {
    const testKey = (await createApiKey(t, liveOnly.session, { mode: "test" })).secret;
    const seen = live.requests.length;
    const orderId = newOrderId();
    const created = await createCheckout(testKey, orderId);
    const init = await initialize(json(created).token);
    expect(json(init)).toMatchObject({ demo: true, providerOrderId: expect.stringMatching(/^pi_demo/) });
    expect((await confirm(json(init).providerOrderId, card("4242424242424242"))).statusCode).toBe(200);
    expect((await complete(orderId, json(init).providerOrderId)).statusCode).toBe(200);
    expect(await orderRow(orderId)).toMatchObject({ livemode: false, paidInDemo: true });
    expect(live.requests.length).toBe(seen);
  });

  it("a test checkout paid in demo before the brand saved sandbox credentials still completes, from the demo ledger", async () => {
    const owner = await registerOwner(t);
    const testKey = (await createApiKey(t, owner.session, { mode: "test" })).secret;
    const orderId = newOrderId();
    const init = await initialize(json(await createCheckout(testKey, orderId)).token);
    expect(json(init)).toMatchObject({ demo: true });
    const intentId = json(init).providerOrderId as string;
    expect((await confirm(intentId, card("4242424242424242"))).statusCode).toBe(200);
    expect((await saveSettings(owner, sandbox, "test")).statusCode).toBe(200);
    const done = await complete(orderId, intentId);
    expect(done.statusCode, done.body).toBe(200);
    expect(await orderRow(orderId)).toMatchObject({ livemode: false, paidInDemo: true });
  });

  it("sandbox credentials disabled: test objects are back in demo, and a sandbox-paid order's refund is not sent to the live credentials", async () => {
    const owner = await registerOwner(t);
    expect((await saveSettings(owner, live)).statusCode).toBe(200);
    expect((await saveSettings(owner, sandbox, "test")).statusCode).toBe(200);
    const testKey = (await createApiKey(t, owner.session, { mode: "test" })).secret;
    const { orderId } = await payAtGateway(testKey, sandbox);
    const off = await call(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider: "intent_gateway", mode: "test", settings: { enabled: false } } });
    expect(off.statusCode, off.body).toBe(200);
    const liveSeen = live.requests.length;
    const refund = await withKey(t, "POST", `/api/v1/orders/${orderId}/refunds`, testKey, { amount: 100, reason: "requested_by_customer" });
    expect(refund.statusCode).toBe(409);
    expect(json(refund)).toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
    const next = await createCheckout(testKey, newOrderId());
    expect(json(await initialize(json(next).token))).toMatchObject({ demo: true });
    expect(live.requests.length).toBe(liveSeen);
  });
});
