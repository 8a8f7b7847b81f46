// Issue 15's attack, replayed against a brand whose vault_gateway_a has real credentials (the real
// adapter against the gateway's fake server): knowing a transaction id or an order id is no longer
// enough to get the saved payment method, set prices or charge it; the brand's API key is; demo
// orders keep working without a key; the public token generator is off once credentials exist.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../support/app.js";
import { registerOwner, type Registered } from "../support/admin.js";
import { orderClaims, post, signToken } from "../support/checkout.js";
import { completeCheckoutViaApi } from "../support/completed-checkout.js";
import { call } from "../support/identity.js";
import { card } from "../support/provider-payments.js";
import { createApiKey, withKey } from "../support/merchant.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../../src/providers/vault-gateway-a/fake-server.js";

let t: TestApp;
let fake: FakeVaultGateway;
let shop: Registered;
let rival: Registered;
let key: string;
/** A token of the public generator, made while every provider of the default brand was in demo mode. */
let generated: { token: string; orderId: string };
let rivalKey: string;
let order: { orderId: string; transactionId: string; paymentMethodToken: string };
const AMOUNT = 2500;
const EMAIL = "buyer@example.com";

beforeAll(async () => {
  // The fake gateway listens on 127.0.0.1, which the settings URL guard refuses unless allowed (CONTRACT §36).
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeVaultGateway()]);
  // The first registered owner holds the default organization and brand: the generator's brand.
  shop = await registerOwner(t, "Real Shop");
  rival = await registerOwner(t, "Rival Shop");
  // Live keys: the money paths below are of a live order (issue 33: a test key is not found there).
  key = (await createApiKey(t, shop.session, { mode: "live" })).secret;
  rivalKey = (await createApiKey(t, rival.session, { mode: "live" })).secret;
  // The token generator still works while every provider is in demo mode.
  const made = await post(t, "/api/token/generate", {});
  expect(made.statusCode).toBe(200);
  generated = { token: json(made).token, orderId: json(made).payload.orderId };
  // Its checkout is initialized while vault_gateway_a is still in demo mode.
  expect((await post(t, "/api/checkout/initialize", { token: generated.token, provider: "vault_gateway_a" })).statusCode).toBe(200);
  const configured = await call(t, "POST", "/api/admin/settings", { session: shop.session, body: { provider: "vault_gateway_a", settings: { securityKey: fake.securityKey, baseUrl: fake.baseUrl } } });
  expect(configured.statusCode, configured.body).toBe(200);

  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId: shop.brandId });
  const orderId = claims.orderId as string;
  expect((await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "vault_gateway_a" })).statusCode).toBe(200);
  const paid = json(await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: AMOUNT, currency: "USD", ...card(), customer: { email: EMAIL, firstName: "Bo", lastName: "Buyer" } }));
  expect(paid.demo).toBe(false);
  const done = await post(t, "/api/checkout/complete", { orderId, transactionId: paid.transactionId, provider: "vault_gateway_a", customerEmail: EMAIL, customerName: "Bo Buyer", amount: AMOUNT, currency: "USD" });
  expect(done.statusCode, done.body).toBe(200);
  order = { orderId, transactionId: paid.transactionId, paymentMethodToken: json(done).paymentMethodToken };
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const charges = () => fake.requests.filter((r) => r.form.type === "sale" && r.form.customer_vault_id !== undefined).length;
const REQUIRED = { error: "API key required", code: "UNAUTHORIZED" };
const sessionBody = (suffix: string, extra: Record<string, unknown> = {}) => ({
  orderId: `${order.orderId}-${suffix}`,
  originalOrderId: order.orderId,
  customerEmail: EMAIL,
  provider: "vault_gateway_a",
  offers: Array.from({ length: 5 }, (_, i) => ({ id: `o${i}`, name: "Gold bar", price: 9_999_999_999 })),
  ...extra,
});

describe("money paths on a real-money order", () => {
  it("step 1: get-payment-token without a key is 401 API key required", async () => {
    const res = await withKey(t, "POST", "/api/checkout/get-payment-token", null, { provider: "vault_gateway_a", transactionId: order.transactionId });
    expect(res.statusCode).toBe(401);
    expect(json(res)).toMatchObject(REQUIRED);
    expect(res.body).not.toContain(order.paymentMethodToken);
  });

  it("step 2: create-session and process-upsell without a key are 401, and the gateway charges nothing", async () => {
    const before = charges();
    for (const body of [sessionBody("a"), sessionBody("b", { paymentMethodToken: order.paymentMethodToken })]) {
      const res = await withKey(t, "POST", "/api/upsell/create-session", null, body);
      expect(res.statusCode, res.body).toBe(401);
      expect(json(res)).toMatchObject(REQUIRED);
    }
    const upsell = await withKey(t, "POST", "/api/providers/vault_gateway_a/process-upsell", null, { paymentMethodToken: order.paymentMethodToken, amount: 1, orderId: `${order.orderId}-x`, originalOrderId: order.orderId });
    expect(upsell.statusCode).toBe(401);
    expect(json(upsell)).toMatchObject(REQUIRED);
    expect(charges()).toBe(before);
  });

  it("another brand's key gets nothing: not found, or 401 on the provider endpoint", async () => {
    const before = charges();
    expect((await withKey(t, "POST", "/api/checkout/get-payment-token", rivalKey, { provider: "vault_gateway_a", transactionId: order.transactionId })).statusCode).toBe(404);
    expect((await withKey(t, "POST", "/api/upsell/create-session", rivalKey, sessionBody("c"))).statusCode).toBe(404);
    const upsell = await withKey(t, "POST", "/api/providers/vault_gateway_a/process-upsell", rivalKey, { paymentMethodToken: order.paymentMethodToken, amount: 1, orderId: `${order.orderId}-y`, originalOrderId: order.orderId });
    expect(upsell.statusCode).toBe(401);
    expect(json(upsell)).toMatchObject({ error: "Invalid API key", code: "UNAUTHORIZED" });
    expect(charges()).toBe(before);
  });

  it("a key without upsell:write is 403 on the money paths", async () => {
    const readOnly = (await createApiKey(t, shop.session, { scopes: ["orders:read"], mode: "live" })).secret;
    const res = await withKey(t, "POST", "/api/checkout/get-payment-token", readOnly, { provider: "vault_gateway_a", transactionId: order.transactionId });
    expect(res.statusCode).toBe(403);
    expect(json(res)).toMatchObject({ error: "API key lacks scope upsell:write", code: "FORBIDDEN" });
  });

  it("with the brand's key: the token, a session whose accept charges at the gateway, and process-upsell", async () => {
    const token = await withKey(t, "POST", "/api/checkout/get-payment-token", key, { provider: "vault_gateway_a", transactionId: order.transactionId });
    expect(token.statusCode, token.body).toBe(200);
    expect(json(token)).toMatchObject({ success: true, paymentMethodToken: order.paymentMethodToken });

    const created = await withKey(t, "POST", "/api/upsell/create-session", key, { ...sessionBody("k1"), offers: [{ id: "o1", name: "Extra", price: 700 }] });
    expect(created.statusCode, created.body).toBe(200);
    const before = charges();
    const accepted = await post(t, "/api/upsell/accept", { sessionId: json(created).sessionId, offerId: "o1" });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(charges()).toBe(before + 1);
    expect(fake.requests.at(-1)!.form).toMatchObject({ amount: "7.00" });

    const upsell = await withKey(t, "POST", "/api/providers/vault_gateway_a/process-upsell", key, { paymentMethodToken: order.paymentMethodToken, amount: 300, orderId: `${order.orderId}-p1`, originalOrderId: order.orderId });
    expect(upsell.statusCode, upsell.body).toBe(200);
    expect(json(upsell)).toMatchObject({ success: true, demo: false, amount: 300 });
    expect(charges()).toBe(before + 2);
    expect(t.logs.join("\n")).not.toContain(key);
  });

  it("step 3: a token the generator made earlier reaches no real-money provider: its checkout stays a test one, paid in demo, nothing charged at the gateway", async () => {
    const before = fake.requests.length;
    // Issue 33: the generator's checkouts are test checkouts; the gateway being real now changes nothing for them.
    const again = await post(t, "/api/checkout/initialize", { token: generated.token, provider: "vault_gateway_a" });
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again).demo).toBe(true);
    const pay = await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId: generated.orderId, amount: 4999, currency: "USD", ...card() });
    expect(pay.statusCode, pay.body).toBe(200);
    expect(json(pay).demo).toBe(true);
    expect(fake.requests.length).toBe(before);
  });

  it("step 3: the public token generator is 404 once the default brand has real credentials", async () => {
    const res = await post(t, "/api/token/generate", { orderInfo: { total: 1 } });
    expect(res.statusCode).toBe(404);
  });
});

describe("money paths on a demo-mode order", () => {
  it("need no key (the SPEC walkthrough keeps working), but a wrong key is still refused", async () => {
    const demo = await completeCheckoutViaApi(t, { provider: "vault_gateway_b", claims: { brandId: rival.brandId } });
    const body = { orderId: `${demo.orderId}-up`, originalOrderId: demo.orderId, customerEmail: "ada@example.com", provider: "vault_gateway_b", offers: [{ id: "o1", name: "Extra", price: 500 }] };
    const created = await withKey(t, "POST", "/api/upsell/create-session", null, body);
    expect(created.statusCode, created.body).toBe(200);
    expect((await withKey(t, "POST", "/api/upsell/create-session", key, { ...body, orderId: `${demo.orderId}-up2` })).statusCode).toBe(404);
    expect(json(await withKey(t, "POST", "/api/upsell/create-session", "sk_bad", body))).toMatchObject({ error: "Invalid API key", code: "UNAUTHORIZED" });
  });
});
