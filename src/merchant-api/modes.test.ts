// Issue 33 item 1 (CONTRACT §39): the credential decides the mode and the mode decides the adapter.
// A test key's (or test token's) checkout is paid by the demo adapter also on a brand with real
// credentials, and the real gateway (a fake at the network boundary) never hears of it; a live key's
// goes to the gateway; a live key without live credentials is refused at creation with nothing
// stored; a test order's money goes back through the demo adapter after credentials are saved; and,
// from an attacker's side, a test key or a test-mode token never reaches a real adapter.
import { and, count, eq } from "drizzle-orm";
import { decodeJwt, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";
import { bearer, createApiKey, withKey } from "../../test/support/merchant.js";
import { card } from "../../test/support/provider-payments.js";
import { apiKeys, checkouts, merchantCheckouts, orders, shortLinks, upsellSessions } from "../db/schema/index.js";
import { sha256 } from "../lib/crypto.js";
import { startFakeIntentGateway, type FakeIntentGateway } from "../providers/intent-gateway/fake-server.js";

const AMOUNT = 2500;
let t: TestApp;
let fake: FakeIntentGateway;
/** A brand with real intent_gateway credentials (the fake gateway), its test and live keys. */
let shop: Registered;
let testKey: string;
let liveKey: string;
/** A brand with no credentials at all. */
let bare: Registered;

beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeIntentGateway()]);
  // The first registration adopts the default brand (the public generator's): it keeps no credentials.
  await registerOwner(t);
  shop = await registerOwner(t);
  bare = await registerOwner(t);
  const configured = await call(t, "POST", "/api/admin/settings", {
    session: shop.session,
    body: { provider: "intent_gateway", settings: { publishableKey: "pk_test_fake", secretKey: fake.secretKey, baseUrl: fake.baseUrl } },
  });
  expect(configured.statusCode, configured.body).toBe(200);
  testKey = (await createApiKey(t, shop.session, { mode: "test" })).secret;
  liveKey = (await createApiKey(t, shop.session, { mode: "live" })).secret;
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const newOrderId = () => orderClaims().orderId as string;
const createCheckout = (key: string, body: Record<string, unknown>) => withKey(t, "POST", "/api/v1/checkouts", key, { amount: AMOUNT, currency: "USD", productName: "Kit", ...body });
const initialize = (token: string) => post(t, "/api/checkout/initialize", { token, provider: "intent_gateway", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
const confirm = (paymentIntentId: string, fields: object = {}) => post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId, ...fields });
const complete = (orderId: string, intentId: string) =>
  post(t, "/api/checkout/complete", { orderId, transactionId: intentId, providerOrderId: intentId, provider: "intent_gateway", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
const orderRow = async (orderId: string) => (await t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId)))[0];
const checkoutRow = async (orderId: string) => (await t.deps.database.db.select().from(checkouts).where(eq(checkouts.orderId, orderId)))[0];

/** A checkout of `token` paid with the demo card form (test mode) and completed: what the checkout page does in demo. */
async function payInDemo(token: string, orderId: string) {
  const init = await initialize(token);
  expect(init.statusCode, init.body).toBe(200);
  expect(json(init)).toMatchObject({ demo: true, providerOrderId: expect.stringMatching(/^pi_demo/) });
  const intentId = json(init).providerOrderId as string;
  const confirmed = await confirm(intentId, card("4242424242424242"));
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  const done = await complete(orderId, intentId);
  expect(done.statusCode, done.body).toBe(200);
  return { intentId, paymentMethodToken: json(done).paymentMethodToken as string };
}

/** A live checkout paid at the gateway (its SDK took the card) and completed. */
async function payLive(token: string, orderId: string) {
  const init = await initialize(token);
  expect(init.statusCode, init.body).toBe(200);
  expect(json(init)).toMatchObject({ demo: false, providerOrderId: expect.stringMatching(/^pi_fake/) });
  const intentId = json(init).providerOrderId as string;
  fake.pay(intentId, "pm_card_visa");
  expect((await confirm(intentId)).statusCode).toBe(200);
  const done = await complete(orderId, intentId);
  expect(done.statusCode, done.body).toBe(200);
  return { intentId, paymentMethodToken: json(done).paymentMethodToken as string };
}

describe("keys have a mode", () => {
  it("makes sk_test_ and sk_live_ secrets, shows the mode, and keeps pre-mode sk_ keys working in their migrated mode", async () => {
    const made = await call(t, "POST", "/api/admin/api-keys", { session: shop.session, body: { name: "default mode" } });
    expect(json(made).secret).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
    expect(json(made).apiKey).toMatchObject({ mode: "test", livemode: false, prefix: json(made).secret.slice(0, 16) });
    const live = await call(t, "POST", "/api/admin/api-keys", { session: shop.session, body: { name: "live", mode: "live" } });
    expect(json(live).secret).toMatch(/^sk_live_[0-9A-Za-z]{40}$/);
    expect(json(live).apiKey).toMatchObject({ mode: "live", livemode: true });
    const listed = json(await call(t, "GET", "/api/admin/api-keys", { session: shop.session })).apiKeys as { id: string; mode: string }[];
    expect(listed.find((k) => k.id === json(live).apiKey.id)).toMatchObject({ mode: "live", livemode: true });
    expect((await call(t, "POST", "/api/admin/api-keys", { session: shop.session, body: { name: "x", mode: "sandbox" } })).statusCode).toBe(400);

    // A key made before modes: `sk_` and 40 characters, live by migration 0022 (its brand has credentials).
    const legacy = `sk_${"L".repeat(40)}`;
    const [owner] = await t.deps.database.db.select({ organizationId: apiKeys.organizationId, createdBy: apiKeys.createdBy }).from(apiKeys).where(eq(apiKeys.brandId, shop.brandId)).limit(1);
    await t.deps.database.db.insert(apiKeys).values({
      id: "key_legacy_modes",
      organizationId: owner!.organizationId,
      brandId: shop.brandId,
      name: "before modes",
      prefix: legacy.slice(0, 11),
      keyHash: sha256(legacy),
      scopes: ["checkouts:write", "orders:read"],
      livemode: true,
      createdBy: owner!.createdBy,
      createdAt: new Date(t.clock.now()),
    });
    const created = await createCheckout(legacy, { orderId: newOrderId() });
    expect(created.statusCode, created.body).toBe(201);
    expect(json(created).livemode).toBe(true);
  });

  it("gives a signing key's tokens its mode; a livemode claim that disagrees is an invalid token", async () => {
    const made = await call(t, "POST", "/api/admin/signing-keys", { session: shop.session, body: { mode: "test" } });
    expect(json(made).signingKey).toMatchObject({ mode: "test", livemode: false });
    const { kid } = json(made).signingKey as { kid: string };
    const sign = (claims: Record<string, unknown>) => {
      const now = Math.floor(t.clock.now() / 1000);
      return new SignJWT({ iat: now, exp: now + 3600, ...claims }).setProtectedHeader({ alg: "HS256", kid }).sign(new TextEncoder().encode(json(made).secret as string));
    };
    const seen = fake.requests.length;
    const orderId = newOrderId();
    await payInDemo(await sign(orderClaims({ orderId, amount: AMOUNT })), orderId);
    expect(await orderRow(orderId)).toMatchObject({ livemode: false, paidInDemo: true });
    expect(fake.requests.length).toBe(seen);

    const forged = await initialize(await sign(orderClaims({ amount: AMOUNT, livemode: true })));
    expect(forged.statusCode).toBe(401);
    expect(json(forged)).toMatchObject({ code: "INVALID_TOKEN" });
    expect((await call(t, "POST", "/api/admin/signing-keys", { session: shop.session, body: { mode: "real" } })).statusCode).toBe(400);
  });
});

describe("the mode decides the adapter", () => {
  it("a test key's checkout on a brand with real credentials pays with demo card 4242 in demo; the gateway sees no request", async () => {
    const orderId = newOrderId();
    const created = await createCheckout(testKey, { orderId });
    expect(created.statusCode, created.body).toBe(201);
    expect(json(created).livemode).toBe(false);
    expect(decodeJwt(json(created).token)).toMatchObject({ livemode: false });
    const seen = fake.requests.length;
    await payInDemo(json(created).token, orderId);
    expect(fake.requests.length).toBe(seen);
    expect(await checkoutRow(orderId)).toMatchObject({ livemode: false });
    expect(await orderRow(orderId)).toMatchObject({ livemode: false, paidInDemo: true });
  });

  it("a live key's checkout on the same brand charges at the gateway, and the demo card form is refused", async () => {
    const orderId = newOrderId();
    const created = await createCheckout(liveKey, { orderId });
    expect(created.statusCode, created.body).toBe(201);
    expect(json(created).livemode).toBe(true);
    const seen = fake.requests.length;
    const init = await initialize(json(created).token);
    const intentId = json(init).providerOrderId as string;
    expect(intentId).toMatch(/^pi_fake/);
    expect(fake.requests.length).toBeGreaterThan(seen);
    // The demo card path does not exist for a live checkout: the card goes to the gateway's SDK.
    const demoCard = await confirm(intentId, card("4242424242424242"));
    expect(demoCard.statusCode).toBe(400);
    expect(json(demoCard)).toMatchObject({ details: "cardNumber" });
    fake.pay(intentId, "pm_card_visa");
    expect((await confirm(intentId)).statusCode).toBe(200);
    expect((await complete(orderId, intentId)).statusCode).toBe(200);
    expect(await orderRow(orderId)).toMatchObject({ livemode: true, paidInDemo: false });
  });

  it("refuses a live checkout at creation when no provider it could use has live credentials: 409, nothing stored", async () => {
    const bareLive = (await createApiKey(t, bare.session, { mode: "live" })).secret;
    const orderId = newOrderId();
    const refused = await createCheckout(bareLive, { orderId });
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
    const named = await createCheckout(bareLive, { orderId, provider: "vault_gateway_b" });
    expect(named.statusCode).toBe(409);
    expect(json(named)).toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
    // On the shop: a named provider without live credentials is refused, though another has them.
    const otherProvider = await createCheckout(liveKey, { orderId: newOrderId(), provider: "vault_gateway_b" });
    expect(otherProvider.statusCode).toBe(409);
    expect(json(otherProvider)).toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
    const db = t.deps.database.db;
    expect((await db.select({ n: count() }).from(merchantCheckouts).where(eq(merchantCheckouts.brandId, bare.brandId)))[0]!.n).toBe(0);
    expect((await db.select({ n: count() }).from(shortLinks).where(eq(shortLinks.brandId, bare.brandId)))[0]!.n).toBe(0);
    // A test key of the same brand always works (demo).
    const bareTest = (await createApiKey(t, bare.session)).secret;
    expect((await createCheckout(bareTest, { orderId })).statusCode).toBe(201);
  });

  it("refunds a test order through the demo adapter even after the brand saved real credentials", async () => {
    const owner = await registerOwner(t);
    const orderId = newOrderId();
    // A token without a mode on a brand without credentials: test (the legacy rule, decided at initialize).
    await payInDemo(await signToken(t, orderClaims({ orderId, amount: AMOUNT, brandId: owner.brandId })), orderId);
    expect(await orderRow(orderId)).toMatchObject({ livemode: false });
    const configured = await call(t, "POST", "/api/admin/settings", {
      session: owner.session,
      body: { provider: "intent_gateway", settings: { publishableKey: "pk_test_fake", secretKey: fake.secretKey, baseUrl: fake.baseUrl } },
    });
    expect(configured.statusCode).toBe(200);
    const seen = fake.requests.length;
    const key = (await createApiKey(t, owner.session)).secret;
    const refund = await withKey(t, "POST", `/api/v1/orders/${orderId}/refunds`, key, { amount: 500, reason: "requested_by_customer" });
    expect(refund.statusCode, refund.body).toBe(200);
    expect(json(refund).refund).toMatchObject({ status: "succeeded", amount: 500 });
    expect(fake.requests.length).toBe(seen);
  });
});

describe("payment links have a mode", () => {
  const link = (session: string, extra: Record<string, unknown> = {}) =>
    call(t, "POST", "/api/admin/payment-links", { session, body: { productName: "Mug", price: AMOUNT, currency: "USD", ...extra } });
  const tokenOf = async (url: string) => {
    const opened = await t.app.inject({ method: "GET", url: new URL(url).pathname });
    expect(opened.statusCode).toBe(302);
    return (opened.headers.location as string).replace("/checkout/", "");
  };

  it("defaults to live on a brand with live credentials, takes test when asked, and carries it into every checkout it makes", async () => {
    const live = await link(shop.session);
    expect(live.statusCode, live.body).toBe(200);
    expect(json(live).link.livemode).toBe(true);
    expect(decodeJwt(await tokenOf(json(live).link.url))).toMatchObject({ livemode: true });
    const test = await link(shop.session, { mode: "test" });
    expect(json(test).link.livemode).toBe(false);
    const token = await tokenOf(json(test).link.url);
    const orderId = decodeJwt(token).orderId as string;
    const seen = fake.requests.length;
    const init = await initialize(token);
    expect(json(init)).toMatchObject({ demo: true });
    expect(fake.requests.length).toBe(seen);
    expect(await checkoutRow(orderId)).toMatchObject({ livemode: false });
  });

  it("defaults to test on a brand without credentials, and refuses a live link there (409)", async () => {
    expect(json(await link(bare.session)).link.livemode).toBe(false);
    const refused = await link(bare.session, { mode: "live" });
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
  });
});

describe("the admin link generator has a mode", () => {
  const seller = async (owner: Registered, app = t) =>
    json(await call(app, "POST", "/api/admin/salespeople", { session: owner.session, body: { name: "Sam", email: `sam-${newOrderId()}@example.com`, password: "a-long-portal-password" } })).salesperson.id as string;
  const generate = (owner: Registered, salespersonId: string, extra: Record<string, unknown> = {}, app = t) =>
    call(app, "POST", "/api/admin/tools/generate-link", { session: owner.session, body: { salespersonId, orderInfo: { productName: "Call", total: AMOUNT, currency: "USD" }, ...extra } });
  /** What the buyer's browser does with the short link: follow it and open the checkout. */
  const open = async (code: string) => {
    const followed = await t.app.inject({ method: "GET", url: `/c/${code}` });
    expect(followed.statusCode).toBe(302);
    return initialize((followed.headers.location as string).replace("/checkout/", ""));
  };

  it("makes a test checkout on a brand with live credentials when asked for test, and the gateway never hears of it", async () => {
    const made = await generate(shop, await seller(shop), { mode: "test" });
    expect(made.statusCode, made.body).toBe(200);
    expect(json(made)).toMatchObject({ success: true, livemode: false });
    expect(decodeJwt(json(made).token)).toMatchObject({ livemode: false });
    const seen = fake.requests.length;
    const init = await open(json(made).code);
    expect(init.statusCode, init.body).toBe(200);
    expect(json(init)).toMatchObject({ demo: true });
    expect(fake.requests.length).toBe(seen);
    expect(await checkoutRow(json(made).orderId)).toMatchObject({ livemode: false });
  });

  it("makes a live checkout when asked for live, and by default on a brand with live credentials", async () => {
    const sellerId = await seller(shop);
    for (const extra of [{ mode: "live" }, {}]) {
      const made = await generate(shop, sellerId, extra);
      expect(made.statusCode, made.body).toBe(200);
      expect(json(made)).toMatchObject({ livemode: true });
      expect(decodeJwt(json(made).token)).toMatchObject({ livemode: true });
      const init = await open(json(made).code);
      expect(json(init)).toMatchObject({ demo: false, providerOrderId: expect.stringMatching(/^pi_fake/) });
      expect(await checkoutRow(json(made).orderId)).toMatchObject({ livemode: true });
    }
  });

  it("defaults to test on a brand without credentials, refuses a live link there (409, nothing stored), and validates the mode", async () => {
    const sellerId = await seller(bare);
    const made = await generate(bare, sellerId);
    expect(json(made)).toMatchObject({ livemode: false });
    expect(await checkoutRow(json(made).orderId)).toBeUndefined();
    expect(json(await open(json(made).code))).toMatchObject({ demo: true });
    expect(await checkoutRow(json(made).orderId)).toMatchObject({ livemode: false });

    const links = async () => (await t.deps.database.db.select({ n: count() }).from(shortLinks).where(eq(shortLinks.brandId, bare.brandId)))[0]!.n;
    const before = await links();
    const refused = await generate(bare, sellerId, { mode: "live", orderInfo: { productName: "Call", total: AMOUNT, currency: "USD", orderId: "refused-live-link" } });
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toMatchObject({ code: "PROVIDER_NOT_CONFIGURED" });
    expect(await links()).toBe(before);
    const wrong = await generate(bare, sellerId, { mode: "sandbox" });
    expect(wrong.statusCode).toBe(400);
    expect(json(wrong)).toMatchObject({ code: "VALIDATION_ERROR" });
  });

  it("a repeat with the same Idempotency-Key answers the same link and mode", async () => {
    const sellerId = await seller(shop);
    const body = { salespersonId: sellerId, orderInfo: { productName: "Call", total: AMOUNT, currency: "USD" }, mode: "test" };
    const headers = { "idempotency-key": `gen-${newOrderId()}` };
    const first = await call(t, "POST", "/api/admin/tools/generate-link", { session: shop.session, body, headers });
    const again = await call(t, "POST", "/api/admin/tools/generate-link", { session: shop.session, body, headers });
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again)).toMatchObject({ code: json(first).code, livemode: false });
  });
});

describe("a funnel session starts only with a key of the order's mode", () => {
  it("POST /api/v1/upsell/sessions { originalOrderId, funnelId }: the other mode's key is 404 naming the mode and starts nothing; the order's own key starts it in its mode", async () => {
    // Paused: only a merchant's server starts it, so the hosted completions above and below never enter it.
    const made = await call(t, "POST", "/api/admin/funnels", {
      session: shop.session,
      body: { name: "Mode funnel", status: "paused", trigger: { match: "all", conditions: [] }, steps: [{ variants: [{ id: "warranty", offer: { name: "Warranty", price: 900 } }] }] },
    });
    expect(made.statusCode, made.body).toBe(200);
    const funnelId = json(made).funnel.id as string;
    const liveOrder = newOrderId();
    await payLive(await signToken(t, orderClaims({ orderId: liveOrder, amount: AMOUNT, brandId: shop.brandId, livemode: true })), liveOrder);
    const testOrder = newOrderId();
    await payInDemo(await signToken(t, orderClaims({ orderId: testOrder, amount: AMOUNT, brandId: shop.brandId, livemode: false })), testOrder);
    const start = (key: string, originalOrderId: string) => withKey(t, "POST", "/api/v1/upsell/sessions", key, { originalOrderId, funnelId });
    const sessionsOf = (originalOrderId: string) => t.deps.database.db.select().from(upsellSessions).where(eq(upsellSessions.originalOrderId, originalOrderId));

    const seen = fake.requests.length;
    const testOnLive = await start(testKey, liveOrder);
    expect(testOnLive.statusCode).toBe(404);
    expect(json(testOnLive)).toMatchObject({ code: "NOT_FOUND", error: "Order not found in test mode (a live object has that id: use a key of its mode)" });
    const liveOnTest = await start(liveKey, testOrder);
    expect(liveOnTest.statusCode).toBe(404);
    expect(json(liveOnTest)).toMatchObject({ code: "NOT_FOUND", error: "Order not found in live mode (a test object has that id: use a key of its mode)" });
    expect(await sessionsOf(liveOrder)).toEqual([]);
    expect(await sessionsOf(testOrder)).toEqual([]);
    expect(fake.requests.length).toBe(seen);

    for (const [key, orderId, livemode] of [[liveKey, liveOrder, true], [testKey, testOrder, false]] as const) {
      const started = await start(key, orderId);
      expect(started.statusCode, started.body).toBe(200);
      expect(json(started)).toMatchObject({ success: true, sessionId: expect.stringMatching(/^ups_/), totalOffers: 1 });
      const [session, ...more] = await sessionsOf(orderId);
      expect(more).toEqual([]);
      expect(session).toMatchObject({ id: json(started).sessionId, brandId: shop.brandId, livemode });
    }
  });
});

describe("an attacker's view", () => {
  it("a test key never leads to a live charge: a live order's refund, upsell session and process-upsell are not found for it", async () => {
    const orderId = newOrderId();
    const created = await createCheckout(liveKey, { orderId });
    const { paymentMethodToken } = await payLive(json(created).token, orderId);
    const seen = fake.requests.length;
    const refund = await withKey(t, "POST", `/api/v1/orders/${orderId}/refunds`, testKey, { amount: 100, reason: "requested_by_customer" });
    expect(refund.statusCode).toBe(404);
    expect(json(refund)).toMatchObject({ code: "NOT_FOUND" });
    const session = await post(
      t,
      "/api/upsell/create-session",
      { orderId: `${orderId}-up`, originalOrderId: orderId, customerEmail: "ada@example.com", paymentMethodToken, provider: "intent_gateway", offers: [{ id: "a", name: "A", price: 900 }] },
      bearer(testKey),
    );
    expect(session.statusCode).toBe(404);
    expect(fake.requests.length).toBe(seen);
    // The live key of the same brand may.
    const real = await withKey(t, "POST", `/api/v1/orders/${orderId}/refunds`, liveKey, { amount: 100, reason: "requested_by_customer" });
    expect(real.statusCode, real.body).toBe(200);
  });

  it("a test-mode token never reaches a real adapter, whatever provider the buyer picks", async () => {
    const orderId = newOrderId();
    const seen = fake.requests.length;
    const token = await signToken(t, orderClaims({ orderId, amount: AMOUNT, brandId: shop.brandId, livemode: false }));
    const { intentId } = await payInDemo(token, orderId);
    // Straight at the provider endpoints too: the stored mode decides, not the brand's settings.
    expect(json(await post(t, "/api/providers/intent_gateway/create-intent", { orderId, amount: AMOUNT, currency: "USD", ...card() }))).toMatchObject({ code: "ALREADY_PAID" });
    expect(fake.requests.length).toBe(seen);
    expect(intentId).toMatch(/^pi_demo/);
    // A test token may not take over a live checkout's orderId (modes never mix on one order).
    const liveOrder = newOrderId();
    await payLive(await signToken(t, orderClaims({ orderId: liveOrder, amount: AMOUNT, brandId: shop.brandId, livemode: true })), liveOrder);
    const hijack = await initialize(await signToken(t, orderClaims({ orderId: liveOrder, amount: AMOUNT, brandId: shop.brandId, livemode: false })));
    expect(hijack.statusCode).toBe(409);
  });

  it("the public generator mints test checkouts only", async () => {
    const generated = await post(t, "/api/token/generate", {});
    expect(generated.statusCode, generated.body).toBe(200);
    const token = json(generated).token as string;
    expect(decodeJwt(token)).toMatchObject({ livemode: false });
    const init = await post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
    expect(init.statusCode, init.body).toBe(200);
    expect(json(init).demo).toBe(true);
    expect(await checkoutRow(decodeJwt(token).orderId as string)).toMatchObject({ livemode: false });
  });
});

describe("PAYMENT_MODE=live refuses test mode altogether", () => {
  let live: TestApp;
  let owner: Registered;
  beforeAll(async () => {
    live = await buildTestApp({ env: { PAYMENT_MODE: "live" } });
    owner = await registerOwner(live);
  });
  afterAll(() => live.close());

  it("makes no test keys, refuses test keys made before, and refuses test tokens", async () => {
    const testMade = await call(live, "POST", "/api/admin/api-keys", { session: owner.session, body: { name: "test" } });
    expect(testMade.statusCode).toBe(409);
    expect(json(testMade)).toMatchObject({ code: "TEST_MODE_DISABLED" });
    expect((await call(live, "POST", "/api/admin/signing-keys", { session: owner.session })).statusCode).toBe(409);
    const liveMade = await call(live, "POST", "/api/admin/api-keys", { session: owner.session, body: { name: "live", mode: "live" } });
    expect(liveMade.statusCode).toBe(200);
    expect(json(liveMade).secret).toMatch(/^sk_live_/);

    // A test key made before the operator switched to live.
    const old = `sk_test_${"T".repeat(40)}`;
    const [row] = await live.deps.database.db.select().from(apiKeys).where(eq(apiKeys.id, json(liveMade).apiKey.id));
    await live.deps.database.db.insert(apiKeys).values({ ...row!, id: "key_old_test", prefix: old.slice(0, 16), keyHash: sha256(old), livemode: false });
    const used = await withKey(live, "GET", "/api/v1/orders", old);
    expect(used.statusCode).toBe(401);
    expect(json(used).error).toMatch(/Test API keys are refused.*PAYMENT_MODE=live/);
    expect((await withKey(live, "GET", "/api/v1/orders", json(liveMade).secret)).statusCode).toBe(200);

    const testToken = await signToken(live, orderClaims({ brandId: owner.brandId, livemode: false }));
    const refused = await post(live, "/api/checkout/initialize", { token: testToken, provider: "vault_gateway_b" });
    expect(refused.statusCode).toBe(401);
    expect(json(refused)).toMatchObject({ code: "INVALID_TOKEN" });
    const checkoutsOfBrand = await live.deps.database.db.select({ n: count() }).from(checkouts).where(and(eq(checkouts.brandId, owner.brandId)));
    expect(checkoutsOfBrand[0]!.n).toBe(0);
  });

  it("refuses a test link from the admin generator (409 TEST_MODE_DISABLED, nothing stored); without a mode the link is live", async () => {
    const person = await call(live, "POST", "/api/admin/salespeople", { session: owner.session, body: { name: "Sam", email: "sam-live@example.com", password: "a-long-portal-password" } });
    const salespersonId = json(person).salesperson.id as string;
    const generate = (extra: Record<string, unknown>) =>
      call(live, "POST", "/api/admin/tools/generate-link", { session: owner.session, body: { salespersonId, orderInfo: { productName: "Call", total: AMOUNT, currency: "USD" }, ...extra } });
    const refused = await generate({ mode: "test" });
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toMatchObject({ code: "TEST_MODE_DISABLED" });
    const stored = await live.deps.database.db.select({ n: count() }).from(shortLinks).where(eq(shortLinks.brandId, owner.brandId));
    expect(stored[0]!.n).toBe(0);
    const made = await generate({});
    expect(made.statusCode, made.body).toBe(200);
    expect(json(made)).toMatchObject({ livemode: true });
    expect(decodeJwt(json(made).token)).toMatchObject({ livemode: true });
  });
});
