// Test and live never mix (CONTRACT §39, issue 33): with one test order (demo-paid) and one live order
// (paid at the fake intent gateway with the brand's saved credentials) on the same brand, every list,
// export, stat and portal of the back office shows one mode, the brand's by default; an API key reads
// its own mode only; a webhook endpoint receives the events of its mode only.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiKeys } from "../../src/db/schema/index.js";
import { startFakeIntentGateway, type FakeIntentGateway } from "../../src/providers/intent-gateway/fake-server.js";
import { SALESPERSON_COOKIE } from "../../src/salespeople/portal.js";
import { registerOwner, type Registered } from "../support/admin.js";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { orderClaims, post, signToken } from "../support/checkout.js";
import { newSalesperson } from "../support/commissions.js";
import { completeCheckoutViaApi } from "../support/completed-checkout.js";
import { call, cookieOf, ORIGIN, PASSWORD } from "../support/identity.js";
import { createApiKey, withKey } from "../support/merchant.js";
import { AMOUNT } from "../support/provider-payments.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

let t: TestApp;
let fake: FakeIntentGateway;
let receiver: Receiver;
let owner: Registered;
let seller: { id: string; email: string };
let funnelId: string;
let testOrder: string;
let liveOrder: string;
let testKey: string;

const KIT = { id: "sku-kit", name: "Starter kit", quantity: 1, unitPrice: 1000 };
const attribution = () => ({ salesAttribution: { salespersonId: seller.id, salespersonName: "Sam Seller", commissionRate: 0.1 } });
const get = (url: string) => call(t, "GET", url, { session: owner.session });
const orderIdsOf = (body: Record<string, any>) => (body.orders as { orderId: string }[]).map((o) => o.orderId);

beforeAll(async () => {
  [t, fake, receiver] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeIntentGateway(), startReceiver()]);
  owner = await registerOwner(t, "Two Modes Shop");
  seller = await newSalesperson(t, owner);
  // A funnel for both orders, so its stats have a session of each mode.
  const funnel = await call(t, "POST", "/api/admin/funnels", {
    session: owner.session,
    body: { name: "Kit buyers", status: "live", trigger: { match: "all", conditions: [{ type: "product", productIds: ["sku-kit"] }] }, steps: [{ variants: [{ id: "refill", offer: { name: "Refill", price: 900 } }] }] },
  });
  expect(funnel.statusCode, funnel.body).toBe(200);
  funnelId = json(funnel).funnel.id;
  // One endpoint per mode, named explicitly (the brand is test until credentials are saved).
  for (const livemode of [false, true]) {
    const res = await call(t, "POST", "/api/admin/webhooks", { session: owner.session, body: { url: `${receiver.url}/${livemode ? "live" : "test"}`, livemode } });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).livemode).toBe(livemode);
  }
  // A key made while the brand is test-only: a test key (the write side names it sk_test_).
  testKey = (await createApiKey(t, owner.session, { scopes: ["orders:read", "checkouts:write"] })).secret;

  // The test order: paid with a demo card before the brand has credentials.
  const demo = await completeCheckoutViaApi(t, { claims: { brandId: owner.brandId, lineItems: [KIT] }, complete: attribution() });
  testOrder = demo.orderId;
  expect(demo.upsellUrl).toBeDefined();

  // The live order: the brand saves real intent gateway credentials; the buyer pays at the gateway.
  const saved = await call(t, "POST", "/api/admin/settings", {
    session: owner.session,
    body: { provider: "intent_gateway", settings: { publishableKey: "pk_test_fake", secretKey: fake.secretKey, baseUrl: fake.baseUrl } },
  });
  expect(saved.statusCode, saved.body).toBe(200);
  const claims = orderClaims({ amount: 2500, currency: "USD", brandId: owner.brandId, lineItems: [{ ...KIT, unitPrice: 2500 }], webhookUrl: `${receiver.url}/token` });
  liveOrder = claims.orderId as string;
  const init = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "intent_gateway", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
  expect(init.statusCode, init.body).toBe(200);
  const intentId = json(init).providerOrderId as string;
  fake.pay(intentId, "pm_card_visa");
  expect((await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId })).statusCode).toBe(200);
  const done = await post(t, "/api/checkout/complete", {
    orderId: liveOrder,
    transactionId: intentId,
    providerOrderId: intentId,
    provider: "intent_gateway",
    customerEmail: "ada@example.com",
    customerName: "Ada Lovelace",
    amount: 2500,
    currency: "USD",
    lineItems: [{ ...KIT, unitPrice: 2500 }],
    ...attribution(),
  });
  expect(done.statusCode, done.body).toBe(200);
  expect(json(done).upsellUrl).toBeDefined();
  await t.app.webhookWorker.deliverDue();
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
  await receiver?.close();
});

describe("the back office shows one mode at a time", () => {
  it("orders list and search: livemode=true the live order only, false the test order only, and the answer says which", async () => {
    const live = json(await get("/api/admin/orders?livemode=true"));
    expect(live.livemode).toBe(true);
    expect(orderIdsOf(live)).toEqual([liveOrder]);
    expect(live.orders[0]).toMatchObject({ livemode: true, test: false });
    const test = json(await get("/api/admin/orders?livemode=false"));
    expect(test.livemode).toBe(false);
    expect(orderIdsOf(test)).toEqual([testOrder]);
    expect(test.orders[0]).toMatchObject({ livemode: false, test: true });
    // Both buyers are Ada: a search finds the mode's order only.
    expect(orderIdsOf(json(await get("/api/admin/orders?q=ada&livemode=true")))).toEqual([liveOrder]);
    expect(orderIdsOf(json(await get("/api/admin/orders?q=ada&livemode=false")))).toEqual([testOrder]);
    expect(orderIdsOf(json(await get(`/api/admin/orders?q=${testOrder}&livemode=true`)))).toEqual([]);
  });

  it("defaults to the brand's mode: live once it has saved real credentials", async () => {
    const byDefault = json(await get("/api/admin/orders"));
    expect(byDefault.livemode).toBe(true);
    expect(orderIdsOf(byDefault)).toEqual([liveOrder]);
    expect((await get("/api/admin/orders?livemode=maybe")).statusCode).toBe(400);
  });

  it("exports one mode per file", async () => {
    const live = await get("/api/admin/orders/export.csv?livemode=true");
    expect(live.statusCode, live.body).toBe(200);
    expect(live.body).toContain(liveOrder);
    expect(live.body).not.toContain(testOrder);
    const test = (await get("/api/admin/orders/export.csv?livemode=false")).body;
    expect(test).toContain(testOrder);
    expect(test).not.toContain(liveOrder);
    expect((await get("/api/admin/orders/export.csv")).body).toContain(liveOrder);
  });

  it("dashboard totals: each mode its own order, the live one by default", async () => {
    const live = json(await get("/api/admin/dashboard?livemode=true"));
    expect(live).toMatchObject({ livemode: true, totals: [{ currency: "USD", orders: 1, checkoutOrders: 1, revenueCents: 2500 }] });
    const test = json(await get("/api/admin/dashboard?livemode=false"));
    expect(test).toMatchObject({ livemode: false, totals: [{ currency: "USD", orders: 1, checkoutOrders: 1, revenueCents: AMOUNT }] });
    expect(json(await get("/api/admin/dashboard")).totals).toEqual(live.totals);
  });

  it("commissions list and report: each mode its own order's commission", async () => {
    const live = json(await get("/api/admin/commissions?livemode=true&report=true"));
    expect(live.livemode).toBe(true);
    expect(live.commissions.map((c: { orderId: string }) => c.orderId)).toEqual([liveOrder]);
    expect(live.report.totals).toEqual({ count: 1, commissionAmount: 250, orderAmount: 2500 });
    const test = json(await get("/api/admin/commissions?livemode=false&report=true"));
    expect(test.commissions.map((c: { orderId: string }) => c.orderId)).toEqual([testOrder]);
    expect(test.report.totals).toEqual({ count: 1, commissionAmount: AMOUNT / 10, orderAmount: AMOUNT });
    expect(json(await get("/api/admin/commissions")).commissions.map((c: { orderId: string }) => c.orderId)).toEqual([liveOrder]);
  });

  it("the salesperson portal's totals: one mode, the brand's by default", async () => {
    const login = await t.app.inject({ method: "POST", url: "/api/salesperson/auth", headers: { origin: ORIGIN, "content-type": "application/json" }, payload: JSON.stringify({ email: seller.email, password: PASSWORD }) });
    expect(login.statusCode, login.body).toBe(200);
    const cookies = { [SALESPERSON_COOKIE]: cookieOf(login, SALESPERSON_COOKIE)!.value };
    const portal = async (query: string) => json(await t.app.inject({ method: "GET", url: `/api/salesperson/auth${query}`, cookies }));
    expect(await portal("?livemode=true")).toMatchObject({ livemode: true, commissions: { total: 250, pending: 250, count: 1 } });
    expect(await portal("?livemode=false")).toMatchObject({ livemode: false, commissions: { total: AMOUNT / 10, pending: AMOUNT / 10, count: 1 } });
    expect(await portal("")).toMatchObject({ livemode: true, commissions: { total: 250, count: 1 } });
  });

  it("funnel stats count each mode's sessions apart", async () => {
    const live = json(await get(`/api/admin/funnels/${funnelId}/stats?livemode=true`));
    expect(live).toMatchObject({ livemode: true, sessions: 1 });
    expect(live.steps[0].variants[0]).toMatchObject({ variantId: "refill", impressions: 1 });
    const test = json(await get(`/api/admin/funnels/${funnelId}/stats?livemode=false`));
    expect(test).toMatchObject({ livemode: false, sessions: 1 });
    expect(test.steps[0].variants[0]).toMatchObject({ variantId: "refill", impressions: 1 });
  });

  it("the upsell take rate on the dashboard counts each mode's sessions apart", async () => {
    for (const livemode of [true, false]) {
      const { offers } = json(await get(`/api/admin/dashboard?livemode=${livemode}`));
      expect(offers, String(livemode)).toEqual([expect.objectContaining({ offerId: "refill", shown: 1, accepted: 0 })]);
    }
  });
});

describe("webhook endpoints subscribe per mode", () => {
  const received = (path: string) => receiver.received.filter((r) => r.path === `/${path}`).map((r) => JSON.parse(r.body) as { type: string; data: { orderId?: string; livemode?: boolean } });

  it("a test endpoint never receives a live event, nor a live endpoint a test event; the token's webhookUrl gets its checkout's", async () => {
    const live = received("live");
    const test = received("test");
    expect(live.map((e) => e.type)).toContain("order.confirmed");
    expect(test.map((e) => e.type)).toContain("order.confirmed");
    for (const event of live) expect(event.data, event.type).toMatchObject({ livemode: true });
    for (const event of test) expect(event.data, event.type).toMatchObject({ livemode: false });
    expect(live.filter((e) => e.type === "order.confirmed").map((e) => e.data.orderId)).toEqual([liveOrder]);
    expect(test.filter((e) => e.type === "order.confirmed").map((e) => e.data.orderId)).toEqual([testOrder]);
    expect(received("token").map((e) => e.type)).toEqual(expect.arrayContaining(["checkout.created", "order.confirmed"]));
  });

  it("lists the endpoints and their deliveries of one mode, the brand's by default", async () => {
    const live = json(await get("/api/admin/webhooks?livemode=true"));
    expect(live.livemode).toBe(true);
    expect(live.endpoints.map((e: { url: string; livemode: boolean }) => [e.url, e.livemode])).toEqual([[`${receiver.url}/live`, true]]);
    expect(json(await get("/api/admin/webhooks")).endpoints.map((e: { url: string }) => e.url)).toEqual([`${receiver.url}/live`]);
    const test = json(await get("/api/admin/webhooks?livemode=false"));
    expect(test.endpoints.map((e: { url: string }) => e.url)).toEqual([`${receiver.url}/test`]);
    const deliveries = json(await get(`/api/admin/webhooks/${live.endpoints[0].id}/deliveries`));
    expect(deliveries.livemode).toBe(true);
    expect(deliveries.deliveries.length).toBeGreaterThan(0);
    expect(json(await get(`/api/admin/webhooks/${live.endpoints[0].id}/deliveries?livemode=false`)).deliveries).toEqual([]);
  });

  it("a new endpoint takes the brand's mode when none is named: live once credentials are saved", async () => {
    const res = await call(t, "POST", "/api/admin/webhooks", { session: owner.session, body: { url: `${receiver.url}/default` } });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).livemode).toBe(true);
    expect((await call(t, "DELETE", `/api/admin/webhooks/${json(res).id}`, { session: owner.session })).statusCode).toBe(200);
  });
});

describe("the merchant API reads the key's mode", () => {
  it("a test key lists and reads the test order; the live order is 404 to it", async () => {
    const list = json(await withKey(t, "GET", "/api/v1/orders", testKey));
    expect(list.livemode).toBe(false);
    expect(orderIdsOf(list)).toEqual([testOrder]);
    // A livemode parameter does not change a key's mode.
    expect(orderIdsOf(json(await withKey(t, "GET", "/api/v1/orders?livemode=true", testKey)))).toEqual([testOrder]);
    expect((await withKey(t, "GET", `/api/v1/orders/${testOrder}`, testKey)).statusCode).toBe(200);
    const other = await withKey(t, "GET", `/api/v1/orders/${liveOrder}`, testKey);
    expect(other.statusCode).toBe(404);
    expect(json(other)).toMatchObject({ error: "Order not found" });
  });

  it("a live key reads the live order; the test order is 404 to it", async () => {
    // Keys get their mode from their prefix on the write side (sk_live_); here the column is set as that side will.
    const made = await createApiKey(t, owner.session, { scopes: ["orders:read"] });
    await t.deps.database.db.update(apiKeys).set({ livemode: true }).where(eq(apiKeys.id, made.id));
    expect(orderIdsOf(json(await withKey(t, "GET", "/api/v1/orders", made.secret)))).toEqual([liveOrder]);
    expect((await withKey(t, "GET", `/api/v1/orders/${liveOrder}`, made.secret)).statusCode).toBe(200);
    expect((await withKey(t, "GET", `/api/v1/orders/${testOrder}`, made.secret)).statusCode).toBe(404);
  });

  it("a checkout the API made is read back by a key of its mode only", async () => {
    const created = await withKey(t, "POST", "/api/v1/checkouts", testKey, { orderId: `mode-${Date.now()}`, amount: 1000, currency: "USD", productName: "Kit" });
    expect(created.statusCode, created.body).toBe(201);
    const id = json(created).id as string;
    expect(json(await withKey(t, "GET", `/api/v1/checkouts/${id}`, testKey))).toMatchObject({ id, livemode: false });
    const made = await createApiKey(t, owner.session, { scopes: ["orders:read"] });
    await t.deps.database.db.update(apiKeys).set({ livemode: true }).where(eq(apiKeys.id, made.id));
    expect((await withKey(t, "GET", `/api/v1/checkouts/${id}`, made.secret)).statusCode).toBe(404);
  });
});
