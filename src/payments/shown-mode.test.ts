// Issue 36 item 14 (docs/decisions.md "Test and live"): a read that names no mode shows the mode the
// brand's orders are in. A brand without live credentials shows test; one with live credentials shows
// live, except while it has test orders and no live order yet: then test, until its first live order.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { orderClaims, post } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";
import { createApiKey, withKey } from "../../test/support/merchant.js";
import { card } from "../../test/support/provider-payments.js";
import { startFakeIntentGateway, type FakeIntentGateway } from "../providers/intent-gateway/fake-server.js";

const AMOUNT = 2500;
let t: TestApp;
let fake: FakeIntentGateway;
let shop: Registered;
let bare: Registered;
let testKey: string;
let liveKey: string;

beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeIntentGateway()]);
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

const shown = async (session: string, path: string) => {
  const res = await call(t, "GET", path, { session });
  expect(res.statusCode, res.body).toBe(200);
  return json(res).livemode as boolean;
};
const READS = ["/api/admin/dashboard", "/api/admin/orders", "/api/admin/payment-links"];

/** A checkout of the key's mode, paid (demo card form for test, the gateway for live) and completed. */
async function sale(key: string, live: boolean): Promise<string> {
  const orderId = orderClaims().orderId as string;
  const created = await withKey(t, "POST", "/api/v1/checkouts", key, { orderId, amount: AMOUNT, currency: "USD", productName: "Kit" });
  expect(created.statusCode, created.body).toBe(201);
  const init = await post(t, "/api/checkout/initialize", { token: json(created).token, provider: "intent_gateway", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
  expect(init.statusCode, init.body).toBe(200);
  const intentId = json(init).providerOrderId as string;
  if (live) fake.pay(intentId, "pm_card_visa");
  const confirmed = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId: intentId, ...(live ? {} : card("4242424242424242")) });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  const done = await post(t, "/api/checkout/complete", { orderId, transactionId: intentId, providerOrderId: intentId, provider: "intent_gateway", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
  expect(done.statusCode, done.body).toBe(200);
  return orderId;
}

describe("the mode a read shows when none is named", () => {
  it("a brand without live credentials shows test", async () => {
    for (const path of READS) expect(await shown(bare.session, path)).toBe(false);
  });

  it("live credentials and no order: live; test orders only: test; the first live order: live", async () => {
    for (const path of READS) expect(await shown(shop.session, path)).toBe(true);

    const testOrder = await sale(testKey, false);
    for (const path of READS) expect(await shown(shop.session, path)).toBe(false);
    const orders = json(await call(t, "GET", "/api/admin/orders", { session: shop.session }));
    expect(JSON.stringify(orders)).toContain(testOrder);
    // Asking still wins.
    expect(await shown(shop.session, "/api/admin/orders?livemode=true")).toBe(true);

    const liveOrder = await sale(liveKey, true);
    for (const path of READS) expect(await shown(shop.session, path)).toBe(true);
    expect(JSON.stringify(json(await call(t, "GET", "/api/admin/orders", { session: shop.session })))).toContain(liveOrder);
  });
});
