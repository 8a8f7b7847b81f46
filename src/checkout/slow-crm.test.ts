// Issue 20: a completion recording its order in a slow CRM holds no database connection while the CRM
// answers (record-in-crm.ts), and still records each order once: concurrent duplicates wait for the
// first, a claim left by a request that died is taken over and finds the CRM order it made.
import { eq } from "drizzle-orm";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner } from "../../test/support/admin.js";
import { call } from "../../test/support/identity.js";
import { CRM_BUYER, paidCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { post } from "../../test/support/provider-payments.js";
import { expectServedWhileProviderIsSlow } from "../../test/support/slow-provider.js";
import { checkouts, orders } from "../db/schema/index.js";
import { startFakeOrderCrmA, type FakeOrderCrmA } from "../providers/order-crm-a/fake-server.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../providers/vault-gateway-a/fake-server.js";

let t: TestApp;
let crm: FakeOrderCrmA;
let gateway: FakeVaultGateway;
let brandId: string;
beforeAll(async () => {
  [t, crm, gateway] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeOrderCrmA(), startFakeVaultGateway()]);
  const owner = await registerOwner(t);
  brandId = owner.brandId;
  // Live orders (issue 33: a test order is recorded in the demo CRM): vault_gateway_b has real credentials too.
  for (const [provider, settings] of [
    ["order_crm_a", { apiUsername: crm.username, apiPassword: crm.password, campaignId: "camp-9", baseUrl: crm.baseUrl }],
    ["vault_gateway_b", { securityKey: gateway.securityKey, baseUrl: gateway.baseUrl }],
  ] as const) {
    const saved = await call(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider, settings } });
    expect(saved.statusCode, saved.body).toBe(200);
  }
});
afterAll(async () => {
  await t.close();
  await crm.close();
  await gateway.close();
});

/** A live vault_gateway_b payment of the owner's brand (at the fake gateway), ready to complete with recording in order_crm_a. */
async function paidOrder() {
  const paid = await paidCheckoutViaApi(t, { claims: { brandId, provider: "vault_gateway_b" }, complete: { ...CRM_BUYER, recordInCrm: true, crmProvider: "order_crm_a" } });
  return { orderId: paid.orderId, transactionId: paid.transactionId, body: paid.completion };
}

const complete = (body: unknown) => post(t, "/api/checkout/complete", body);
const crmOrdersOf = (orderId: string) => [...crm.orders.values()].filter((o) => o.external_order_id === orderId);
const orderRow = async (orderId: string) => (await t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId)))[0];
const setClaim = (orderId: string, claim: string | null, at: Date | null) =>
  t.deps.database.db.update(checkouts).set({ crmClaim: claim, crmClaimedAt: at }).where(eq(checkouts.orderId, orderId));

describe("a slow CRM", () => {
  it("holds no pool connection while it answers: other routes are served during the recordings", async () => {
    // More recordings in flight than the pool has connections.
    const paid = [];
    for (let i = 0; i < 8; i++) paid.push(await paidOrder());
    const responses = await expectServedWhileProviderIsSlow(t, crm, paid.map(({ body }) => () => complete(body)));
    for (const [i, response] of responses.entries()) {
      expect(response.statusCode, response.body).toBe(200);
      const { crmOrderId } = json(response);
      expect(crmOrderId).toBeTruthy();
      expect(crmOrdersOf(paid[i]!.orderId).map((o) => o.order_id)).toEqual([crmOrderId]);
      expect(await orderRow(paid[i]!.orderId)).toMatchObject({ crmStatus: "recorded", crmOrderId });
    }
  });

  it("records concurrent duplicates of a completion once; they all answer its result", async () => {
    const { orderId, body } = await paidOrder();
    crm.delayMs = 300;
    try {
      const results = await Promise.all(Array.from({ length: 5 }, () => complete(body)));
      for (const res of results) expect(res.statusCode, res.body).toBe(200);
      expect(new Set(results.map((r) => r.body)).size).toBe(1);
      expect(crmOrdersOf(orderId)).toHaveLength(1);
      expect(crm.requests.filter((r) => r.path === "/api/v1/new_order" && r.json.externalOrderId === orderId)).toHaveLength(1);
    } finally {
      crm.delayMs = 0;
    }
  });

  it("waits while another request holds the claim, then records the order itself when that one gave up", async () => {
    const { orderId, body } = await paidOrder();
    await setClaim(orderId, "crm_other", new Date(t.clock.now()));
    let done = false;
    const completion = complete(body).then((res) => ((done = true), res));
    await sleep(300);
    expect(done).toBe(false);
    expect(crmOrdersOf(orderId)).toHaveLength(0);
    await setClaim(orderId, null, null);
    const res = await completion;
    expect(res.statusCode, res.body).toBe(200);
    expect(crmOrdersOf(orderId).map((o) => o.order_id)).toEqual([json(res).crmOrderId]);
  });

  it("takes over a claim left by a request that died a minute ago, finding the CRM order it made instead of making another", async () => {
    const { orderId, transactionId, body } = await paidOrder();
    // The dead request had recorded the sale at the CRM (our order id and transaction in its notes), then died before writing the order.
    const made = await fetch(`${crm.baseUrl}/api/v1/new_order`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Basic ${Buffer.from(`${crm.username}:${crm.password}`).toString("base64")}` },
      body: JSON.stringify({ creditCardType: "offline", externalOrderId: orderId, notes: `transaction ${transactionId}`, total: "10.00", currency: "USD" }),
    });
    const crmOrderId = ((await made.json()) as { order_id: string }).order_id;
    await setClaim(orderId, "crm_dead", new Date(t.clock.now() - 61_000));

    const res = await complete(body);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).crmOrderId).toBe(crmOrderId);
    expect(crmOrdersOf(orderId)).toHaveLength(1);
    expect(await orderRow(orderId)).toMatchObject({ crmStatus: "recorded", crmOrderId });
    const [checkout] = await t.deps.database.db.select().from(checkouts).where(eq(checkouts.orderId, orderId));
    expect(checkout).toMatchObject({ status: "completed", crmClaim: null, crmClaimedAt: null });
  });
});
