// Issue 20, target 4: a payment waiting on a slow provider holds no database connection, so more such
// payments than the pool has connections leave every other route served at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner } from "../../test/support/admin.js";
import { orderClaims, signToken } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";
import { AMOUNT as DEMO_AMOUNT, card, post } from "../../test/support/provider-payments.js";
import { expectServedWhileProviderIsSlow } from "../../test/support/slow-provider.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../providers/vault-gateway-a/fake-server.js";

const AMOUNT = 1050;

let t: TestApp;
let fake: FakeVaultGateway;
let brandId: string;
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeVaultGateway()]);
  const owner = await registerOwner(t);
  brandId = owner.brandId;
  const saved = await call(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider: "vault_gateway_a", settings: { securityKey: fake.securityKey, baseUrl: fake.baseUrl } } });
  expect(saved.statusCode, saved.body).toBe(200);
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function initialize(claims: Record<string, unknown>, provider: string): Promise<string> {
  const response = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider });
  expect(response.statusCode, response.body).toBe(200);
  return claims.orderId as string;
}

describe("a slow payment provider", () => {
  it("holds no pool connection while it answers: other routes are served during the calls", async () => {
    // More payments in flight than the pool has connections.
    const orderIds: string[] = [];
    for (let i = 0; i < 8; i++) orderIds.push(await initialize(orderClaims({ amount: AMOUNT, currency: "USD", brandId }), "vault_gateway_a"));
    const pay = (orderId: string) => () => post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: AMOUNT, currency: "USD", ...card() });
    // The other buyer's demo payment is answered too.
    const demoPay = async (orderId: string) => {
      const paid = await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: DEMO_AMOUNT, ...card() });
      expect(paid.statusCode, paid.body).toBe(200);
    };
    for (const response of await expectServedWhileProviderIsSlow(t, fake, orderIds.map(pay), demoPay)) {
      expect(response.statusCode, response.body).toBe(200);
      expect(json(response)).toMatchObject({ success: true, demo: false });
    }
  });
});
