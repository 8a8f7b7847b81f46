// A repeat made while the first request holds the claim longer than WAIT_FOR_FIRST_MS answers 409 in
// progress after waiting, and nothing is charged or recorded twice (claimOrWait): a card charge, an
// upsell accept, a completion recording in a CRM, a CRM retry. The first is held by a slow fake server
// at the network boundary; the wait is shortened through WAIT_FOR_FIRST_MS so the test runs in seconds.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { and, eq } from "drizzle-orm";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner } from "../../test/support/admin.js";
import { orderClaims, signToken } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";
import { bearer, createApiKey } from "../../test/support/merchant.js";
import { address, AMOUNT, card, customer, PAY_BY_PROVIDER, post } from "../../test/support/provider-payments.js";
import { orders } from "../db/schema/index.js";
import { startFakeOrderCrmA, type FakeOrderCrmA } from "../providers/order-crm-a/fake-server.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../providers/vault-gateway-a/fake-server.js";

const WAIT_MS = 300;
/** How long the fakes hold each answer: far beyond the wait, so the first still holds its claim when the repeat gives up. */
const SLOW_MS = 2_000;
const IN_PROGRESS = { error: "Request in progress", code: "REQUEST_IN_PROGRESS" };

let t: TestApp;
let gateway: FakeVaultGateway;
let crm: FakeOrderCrmA;
let owner: Awaited<ReturnType<typeof registerOwner>>;
let apiKey: string;
beforeAll(async () => {
  [t, gateway, crm] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true", WAIT_FOR_FIRST_MS: String(WAIT_MS) } }), startFakeVaultGateway(), startFakeOrderCrmA()]);
  owner = await registerOwner(t);
  apiKey = (await createApiKey(t, owner.session, { mode: "live" })).secret;
  for (const [provider, settings] of [
    ["vault_gateway_a", { securityKey: gateway.securityKey, baseUrl: gateway.baseUrl }],
    ["order_crm_a", { apiUsername: crm.username, apiPassword: crm.password, campaignId: "camp-9", baseUrl: crm.baseUrl }],
  ] as const) {
    const saved = await call(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider, settings } });
    expect(saved.statusCode, saved.body).toBe(200);
  }
});
afterAll(async () => {
  await t.close();
  await Promise.all([gateway.close(), crm.close()]);
});

/**
 * Sends `first` to a slow fake, then the repeat once the fake has the first's call. Answers the
 * repeat's response, how long it took, and whether the first had answered by then; then the first's.
 */
async function repeatWhileFirstHolds(fake: { delayMs: number; requests: unknown[] }, send: () => Promise<LightMyRequestResponse>) {
  const sent = fake.requests.length;
  fake.delayMs = SLOW_MS;
  try {
    let firstAnswered = false;
    const first = send().then((response) => ((firstAnswered = true), response));
    while (fake.requests.length === sent) await sleep(10);
    const started = performance.now();
    const repeat = await send();
    return { repeat, waitedMs: performance.now() - started, firstAnsweredMeanwhile: firstAnswered, first: await first };
  } finally {
    fake.delayMs = 0;
  }
}

/** The repeat waited for the first (the backoff gives up at least half the wait in), then answered 409 in progress. */
function expectInProgressAfterWaiting(r: { repeat: LightMyRequestResponse; waitedMs: number; firstAnsweredMeanwhile: boolean }) {
  expect(r.repeat.statusCode, r.repeat.body).toBe(409);
  expect(json(r.repeat)).toMatchObject(IN_PROGRESS);
  expect(r.waitedMs).toBeGreaterThanOrEqual(WAIT_MS / 2);
  expect(r.firstAnsweredMeanwhile).toBe(false);
}

const salesAtGateway = (orderId: string) => [...gateway.transactions.values()].filter((sale) => sale.actionType === "sale" && sale.orderId === orderId);
const crmOrdersOf = (orderId: string) => [...crm.orders.values()].filter((o) => o.external_order_id === orderId);
const ordersOf = (orderId: string, kind: "checkout" | "upsell") => t.deps.database.db.select().from(orders).where(and(eq(orders.orderId, orderId), eq(orders.kind, kind)));

async function initialize(provider: string, extra: Record<string, unknown> = {}): Promise<string> {
  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId: owner.brandId, provider });
  const res = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider, ...extra });
  expect(res.statusCode, res.body).toBe(200);
  return claims.orderId as string;
}

describe("a repeat while the first request holds the charge claim", () => {
  it("of a card payment: 409 in progress, and the gateway makes one sale, which a later repeat replays", async () => {
    const orderId = await initialize("vault_gateway_a");
    const body = { orderId, amount: AMOUNT, currency: "USD", ...card() };
    const r = await repeatWhileFirstHolds(gateway, () => post(t, "/api/providers/vault_gateway_a/process-payment", body));

    expectInProgressAfterWaiting(r);
    expect(r.first.statusCode, r.first.body).toBe(200);
    expect(salesAtGateway(orderId)).toHaveLength(1);
    const later = await post(t, "/api/providers/vault_gateway_a/process-payment", body);
    expect(later.statusCode).toBe(200);
    expect(later.body).toBe(r.first.body);
    expect(salesAtGateway(orderId)).toHaveLength(1);
  });

  it("of an upsell accept: 409 in progress, and the offer is charged and ordered once", async () => {
    const orderId = await initialize("vault_gateway_a");
    const paid = await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: AMOUNT, currency: "USD", ...card() });
    expect(paid.statusCode, paid.body).toBe(200);
    const done = await post(t, "/api/checkout/complete", { orderId, transactionId: json(paid).transactionId, provider: "vault_gateway_a", customerEmail: customer.email, customerName: "Ada", amount: AMOUNT, currency: "USD" });
    expect(done.statusCode, done.body).toBe(200);
    const upsellOrderId = `${orderId}-up`;
    const created = await post(
      t,
      "/api/upsell/create-session",
      { orderId: upsellOrderId, originalOrderId: orderId, customerEmail: customer.email, paymentMethodToken: json(done).paymentMethodToken, provider: "vault_gateway_a", offers: [{ id: "a", name: "Offer a", price: 1500 }] },
      { headers: bearer(apiKey) },
    );
    expect(created.statusCode, created.body).toBe(200);

    const r = await repeatWhileFirstHolds(gateway, () => post(t, "/api/upsell/accept", { sessionId: json(created).sessionId, offerId: "a" }));

    expectInProgressAfterWaiting(r);
    expect(r.first.statusCode, r.first.body).toBe(200);
    expect(json(r.first)).toMatchObject({ success: true, offerAccepted: "a", amountCharged: 1500 });
    expect(salesAtGateway(upsellOrderId)).toHaveLength(1);
    expect(await ordersOf(upsellOrderId, "upsell")).toMatchObject([{ transactionId: json(r.first).transactionId }]);
  });
});

describe("a repeat while the first request holds the CRM claim", () => {
  /**
   * A live payment of the owner's brand at its real gateway, the checkout initialized with the buyer's
   * details (a test order would be recorded in the demo CRM, never the real one: issue 33).
   */
  async function paidOrder() {
    const orderId = await initialize("vault_gateway_a", { customer, billingAddress: address });
    const paid = await PAY_BY_PROVIDER.vault_gateway_a(t, orderId);
    const completion = { orderId, transactionId: paid.transactionId, provider: "vault_gateway_a", customerEmail: customer.email, customerName: "Ada Lovelace", amount: AMOUNT, currency: "USD", recordInCrm: true, crmProvider: "order_crm_a" };
    return { orderId, completion };
  }

  it("of a completion recording in the CRM: 409 in progress, and the CRM records one order, which a later repeat replays", async () => {
    const { orderId, completion } = await paidOrder();
    const body = { ...completion, customer: { firstName: "Ada", lastName: "Lovelace" }, billingAddress: address };
    const r = await repeatWhileFirstHolds(crm, () => post(t, "/api/checkout/complete", body));

    expectInProgressAfterWaiting(r);
    expect(r.first.statusCode, r.first.body).toBe(200);
    const { crmOrderId } = json(r.first);
    expect(crmOrdersOf(orderId).map((o) => o.order_id)).toEqual([crmOrderId]);
    expect(await ordersOf(orderId, "checkout")).toMatchObject([{ crmStatus: "recorded", crmOrderId }]);
    const later = await post(t, "/api/checkout/complete", body);
    expect(later.statusCode).toBe(200);
    expect(later.body).toBe(r.first.body);
    expect(crmOrdersOf(orderId)).toHaveLength(1);
  });

  it("of an administration CRM retry: 409 in progress, and the CRM records the order once", async () => {
    // Completed without billingAddress: its recording was skipped, for the retry to make.
    const { orderId, completion } = await paidOrder();
    const done = await post(t, "/api/checkout/complete", completion);
    expect(done.statusCode, done.body).toBe(200);
    expect(await ordersOf(orderId, "checkout")).toMatchObject([{ crmStatus: "skipped" }]);

    const r = await repeatWhileFirstHolds(crm, () => call(t, "POST", "/api/admin/crm-retry", { session: owner.session, body: { orderId } }));

    expectInProgressAfterWaiting(r);
    expect(r.first.statusCode, r.first.body).toBe(200);
    const { crmOrderId } = json(r.first);
    expect(json(r.first)).toMatchObject({ crmStatus: "recorded", alreadyRecorded: false });
    expect(crmOrdersOf(orderId).map((o) => o.order_id)).toEqual([crmOrderId]);
    expect(await ordersOf(orderId, "checkout")).toMatchObject([{ crmStatus: "recorded", crmOrderId }]);
  });
});
