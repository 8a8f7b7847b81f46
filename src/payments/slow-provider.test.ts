// Issue 20, target 4: a payment waiting on a slow provider holds no database connection, so more such
// payments than the pool has connections leave every other route served at once.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner } from "../../test/support/admin.js";
import { orderClaims, signToken } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";
import { card, post } from "../../test/support/provider-payments.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../providers/vault-gateway-a/fake-server.js";

const AMOUNT = 1050;
const SLOW_MS = 2_000;

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
    // More payments in flight than the pool has connections (5 in tests; PGlite has one).
    const orderIds: string[] = [];
    for (let i = 0; i < 8; i++) orderIds.push(await initialize(orderClaims({ amount: AMOUNT, currency: "USD", brandId }), "vault_gateway_a"));
    const sent = fake.requests.length;
    fake.delayMs = SLOW_MS;
    let answered = 0;
    const payments = orderIds.map((orderId) =>
      post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: AMOUNT, currency: "USD", ...card() }).then((response) => {
        answered++;
        return response;
      }),
    );
    try {
      while (fake.requests.length < sent + orderIds.length) await sleep(10);

      // All eight wait on the gateway now. Another buyer starts, a paid flow's read and the probes answer.
      const started = performance.now();
      const other = await initialize(orderClaims({ amount: AMOUNT, currency: "USD", provider: "vault_gateway_b" }), "vault_gateway_b");
      const demoPay = await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId: other, amount: AMOUNT, ...card() });
      expect(demoPay.statusCode, demoPay.body).toBe(200);
      expect((await t.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(200);
      const elapsed = performance.now() - started;
      expect(answered).toBe(0);
      expect(elapsed).toBeLessThan(SLOW_MS / 2);
      if (t.deps.database.poolQueue) expect(t.deps.database.poolQueue().waiting).toBe(0);
    } finally {
      fake.delayMs = 0;
    }
    for (const response of await Promise.all(payments)) {
      expect(response.statusCode, response.body).toBe(200);
      expect(json(response)).toMatchObject({ success: true, demo: false });
    }
  });
});
