// Issue 20, target 4, for the upsell's charges (accept; pay-with-card shares chargeOfferOnce): the
// provider is called with no database connection held, and the offer is still charged exactly once
// (CONTRACT §7): concurrent accepts, a decline during the charge, a request that died holding the
// offer's claim (before or after the provider charged), a provider failure. Against the real vault
// gateway adapter and its fake server at the network boundary; the dead request's case in demo mode.
import { setTimeout as sleep } from "node:timers/promises";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../test/support/database.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner } from "../../test/support/admin.js";
import { completeCheckoutViaApi, createUpsellSession } from "../../test/support/completed-checkout.js";
import { call } from "../../test/support/identity.js";
import { bearer, createApiKey } from "../../test/support/merchant.js";
import { post } from "../../test/support/provider-payments.js";
import { expectServedWhileProviderIsSlow } from "../../test/support/slow-provider.js";
import { DEFAULT_BRAND_ID, demoProviderRecords, orders, outboxEvents, upsellOfferResults } from "../db/schema/index.js";
import { ABANDONED_CLAIM_MS } from "../payments/charge-once.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../providers/vault-gateway-a/fake-server.js";

const OFFER_A = { id: "a", name: "Offer a", price: 1500 };

let t: TestApp;
let fake: FakeVaultGateway;
let brandId: string;
let apiKey: string;
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeVaultGateway()]);
  const owner = await registerOwner(t);
  brandId = owner.brandId;
  apiKey = (await createApiKey(t, owner.session, { mode: "live" })).secret;
  const saved = await call(t, "POST", "/api/admin/settings", { session: owner.session, body: { provider: "vault_gateway_a", settings: { securityKey: fake.securityKey, baseUrl: fake.baseUrl } } });
  expect(saved.statusCode, saved.body).toBe(200);
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
const db = () => t.deps.database.db;

/** A checkout paid at the gateway and completed, then an upsell session on it (sent with the brand's key, CONTRACT §35). */
async function sessionAtGateway(): Promise<{ sessionId: string; upsellOrderId: string }> {
  const done = await completeCheckoutViaApi(t, { provider: "vault_gateway_a", claims: { brandId } });
  return createUpsellSession(t, done, [OFFER_A, { id: "b", name: "Offer b", price: 700 }], { headers: bearer(apiKey) });
}

const accept = (sessionId: string, offerId = "a") => post(t, "/api/upsell/accept", { sessionId, offerId });
/** Sales the gateway made for an upsell order: what the buyer's statement would show. */
const salesAtGateway = (upsellOrderId: string) => [...fake.transactions.values()].filter((sale) => sale.actionType === "sale" && sale.orderId === upsellOrderId);
const upsellOrders = (orderId: string) => db().select().from(orders).where(and(eq(orders.orderId, orderId), eq(orders.kind, "upsell")));
const acceptedEvents = async (sessionId: string) => (await db().select().from(outboxEvents).where(eq(outboxEvents.type, "upsell.accepted"))).filter((e) => e.payload.sessionId === sessionId);

/** Resolves once the gateway has received `count` more requests than `before`. */
async function gatewayReceived(before: number, count: number): Promise<void> {
  while (fake.requests.length < before + count) await sleep(10);
}

describe("an upsell charge at a slow provider", () => {
  it("holds no pool connection while the provider answers: other routes are served, and every accept charges once", async () => {
    // More accepts in flight than the pool has connections.
    const sessions: { sessionId: string; upsellOrderId: string }[] = [];
    for (let i = 0; i < 8; i++) sessions.push(await sessionAtGateway());
    const responses = await expectServedWhileProviderIsSlow(t, fake, sessions.map((s) => () => accept(s.sessionId)));
    for (const [i, response] of responses.entries()) {
      expect(response.statusCode, response.body).toBe(200);
      expect(json(response)).toMatchObject({ success: true, offerAccepted: "a", amountCharged: 1500 });
      expect(salesAtGateway(sessions[i]!.upsellOrderId)).toHaveLength(1);
      expect(await upsellOrders(sessions[i]!.upsellOrderId)).toMatchObject([{ transactionId: json(response).transactionId }]);
    }
  });

  // PostgreSQL only: PGlite has one connection and runs transactions one at a time, so this race cannot fail there.
  it.runIf(testEngine === "postgres")("ten concurrent accepts of one offer: the gateway is asked once, and all ten answer its charge", async () => {
    const s = await sessionAtGateway();
    const sent = fake.requests.length;
    fake.delayMs = 300;
    try {
      const responses = await Promise.all(Array.from({ length: 10 }, () => accept(s.sessionId)));
      expect(responses.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
      expect(new Set(responses.map((r) => r.body)).size).toBe(1);
    } finally {
      fake.delayMs = 0;
    }
    expect(fake.requests.length - sent).toBe(1);
    expect(salesAtGateway(s.upsellOrderId)).toHaveLength(1);
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(1);
    expect(await acceptedEvents(s.sessionId)).toHaveLength(1);
  });

  it("a decline of the offer while its charge is at the provider is 409 in progress (an action link returns to the offer); another offer can be answered meanwhile", async () => {
    const s = await sessionAtGateway();
    const sent = fake.requests.length;
    fake.delayMs = 500;
    try {
      const accepting = accept(s.sessionId, "a");
      await gatewayReceived(sent, 1);
      const declined = await post(t, "/api/upsell/decline", { sessionId: s.sessionId, offerId: "a" });
      expect(declined.statusCode, declined.body).toBe(409);
      expect(json(declined)).toMatchObject({ error: "Request in progress", code: "REQUEST_IN_PROGRESS" });
      const link = await t.app.inject({ method: "POST", url: `/upsell/action/decline/${s.sessionId}` });
      expect(link.statusCode, link.body).toBe(303);
      expect(link.headers.location).toBe(`/upsell/${s.sessionId}`);
      const other = await post(t, "/api/upsell/decline", { sessionId: s.sessionId, offerId: "b" });
      expect(json(other)).toEqual({ success: true, hasMoreOffers: true, nextOfferId: "a" });
      const accepted = await accepting;
      expect(accepted.statusCode, accepted.body).toBe(200);
      expect(json(accepted)).toMatchObject({ offerAccepted: "a", hasMoreOffers: false, totalUpsellAmount: 1500 });
    } finally {
      fake.delayMs = 0;
    }
    const session = json(await t.app.inject({ method: "GET", url: `/api/upsell/session/${s.sessionId}` })).session;
    expect(session).toMatchObject({ status: "completed", acceptedOffers: ["a"], declinedOffers: ["b"], totalUpsellAmount: 1500 });
    expect(salesAtGateway(s.upsellOrderId)).toHaveLength(1);
  });

  it("a provider failure is 502 and leaves the offer open: the retry charges it once", async () => {
    const s = await sessionAtGateway();
    fake.failNext = "500";
    const failed = await accept(s.sessionId);
    expect(failed.statusCode, failed.body).toBe(502);
    expect(json(failed)).toMatchObject({ code: "PROVIDER_ERROR" });
    const retried = await accept(s.sessionId);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(salesAtGateway(s.upsellOrderId)).toHaveLength(1);
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(1);
  });
});

describe("a request that died holding the offer's claim", () => {
  /** A demo-mode session, and the state a process killed after claiming offer a leaves: the claim, still pending. */
  async function claimLeftBehind() {
    const done = await completeCheckoutViaApi(t, { claims: { provider: "vault_gateway_b" } });
    const { sessionId, upsellOrderId } = await createUpsellSession(t, done, [OFFER_A]);
    const chargeKey = `upsell:${sessionId}:a`;
    await db().insert(upsellOfferResults).values({ sessionId, offerId: "a", decision: "pending", chargeKey, createdAt: new Date(t.clock.now()) });
    return { sessionId, upsellOrderId, paymentMethodToken: done.paymentMethodToken, originalOrderId: done.orderId, chargeKey };
  }
  const chargesAtDemoProvider = (orderId: string) => db().select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, orderId));

  it("killed before the provider: the offer is in progress (409) for a minute, then the next accept takes the claim over and charges once", async () => {
    const s = await claimLeftBehind();
    const during = await accept(s.sessionId);
    expect(during.statusCode).toBe(409);
    expect(json(during)).toMatchObject({ error: "Request in progress", code: "REQUEST_IN_PROGRESS" });
    expect(await chargesAtDemoProvider(s.upsellOrderId)).toHaveLength(0);

    t.clock.advance(ABANDONED_CLAIM_MS + 1_000);
    const after = await accept(s.sessionId);
    expect(after.statusCode, after.body).toBe(200);
    expect(await chargesAtDemoProvider(s.upsellOrderId)).toMatchObject([{ id: json(after).transactionId, status: "succeeded", amountCents: 1500 }]);
    expect(json(await accept(s.sessionId))).toEqual(json(after));
  });

  it("killed after the provider charged: the retry sends the same idempotency key, the provider answers that charge, and it is recorded once", async () => {
    const s = await claimLeftBehind();
    // The dead request's charge, as it sent it (demo mode: the demo provider's own ledger keeps it).
    const { adapter, call: providerCall } = await t.deps.providers.payment("vault_gateway_b", DEFAULT_BRAND_ID, false);
    const charged = await adapter.chargeSaved({ paymentMethodToken: s.paymentMethodToken, amountCents: 1500, currency: "USD", orderId: s.upsellOrderId, originalOrderId: s.originalOrderId }, { ...providerCall, idempotencyKey: s.chargeKey });
    expect(charged.status).toBe("succeeded");

    t.clock.advance(ABANDONED_CLAIM_MS + 1_000);
    const retried = await accept(s.sessionId);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(json(retried).transactionId).toBe(charged.status === "succeeded" && charged.transactionId);
    expect(await chargesAtDemoProvider(s.upsellOrderId)).toHaveLength(1);
    expect(await upsellOrders(s.upsellOrderId)).toHaveLength(1);
    expect(await acceptedEvents(s.sessionId)).toHaveLength(1);
  });
});
