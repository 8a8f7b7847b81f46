// POST /api/checkout/pay (issue 34 item 4, CONTRACT §37, §42): the card charged through the brand's
// card-taking providers, cascading to the next after a soft decline, never after a hard one or a
// 3-D Secure step; one claim over the whole cascade; declines counted once per request.
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { createBrand, orderClaims, signToken } from "../../test/support/checkout.js";
import { testEngine } from "../../test/support/database.js";
import { address, card, customer, post } from "../../test/support/provider-payments.js";
import { completePaid, payRecords } from "../../test/support/checkout-pay.js";
import { checkouts, demoProviderRecords, orderCharges, orders, paymentAttempts } from "../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const AMOUNT = 1000;
const db = () => t.deps.database.db;
let sequence = 0;
/** A fresh client address per test, so the card-testing limit (§21) counts only the test's own declines. */
const freshAddress = () => `10.34.${Math.floor(++sequence / 250)}.${sequence % 250}`;

async function initialized(brandId: string, provider: string, claims: Record<string, unknown> = {}) {
  const order = orderClaims({ brandId, amount: AMOUNT, currency: "USD", ...claims });
  const response = await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider });
  expect(response.statusCode, response.body).toBe(200);
  return order.orderId as string;
}

const payBody = (orderId: string, cardNumber = "4242424242424242") => ({ orderId, ...card(cardNumber), customer, billingAddress: address });
const pay = (body: Record<string, unknown>, remoteAddress = "10.34.0.1", headers: Record<string, string> = {}) =>
  post(t, "/api/checkout/pay", body, { remoteAddress, headers: { "content-type": "application/json", ...headers } });

const succeededChargesOf = (orderId: string) =>
  db().select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, orderId), eq(demoProviderRecords.status, "succeeded"), sql`${demoProviderRecords.kind} in ('charge', 'payment_intent')`));

const { attemptsOf, declinesOf, failedEventsOf } = payRecords(() => t);
const complete = (orderId: string, paid: { provider: string; transactionId: string; providerOrderId: string }) => completePaid(t, orderId, paid);

describe("a brand with two card-taking providers (demo)", () => {
  let brandId: string;
  beforeAll(async () => {
    ({ brandId } = await createBrand(t, { providers: [{ provider: "vault_gateway_a" }, { provider: "vault_gateway_b" }, { provider: "hosted_store" }] }));
  });

  it("charges the first provider; complete verifies there; the attempt keeps six digits of the card at most", async () => {
    const orderId = await initialized(brandId, "vault_gateway_a");
    const response = await pay(payBody(orderId), freshAddress());
    expect(response.statusCode, response.body).toBe(200);
    const paid = response.json();
    expect(paid).toMatchObject({ status: "succeeded", provider: "vault_gateway_a", orderId, demo: true, attempts: [{ provider: "vault_gateway_a", result: "approved", declineCode: null }] });
    expect((await attemptsOf(orderId)).map(({ provider, result, cardBin, cascadeIndex, ruleName }) => ({ provider, result, cardBin, cascadeIndex, ruleName }))).toEqual([
      { provider: "vault_gateway_a", result: "approved", cardBin: "424242", cascadeIndex: 0, ruleName: "default" },
    ]);
    const stored = JSON.stringify(await db().select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId)));
    expect(stored).not.toContain("4242424242");
    const done = await complete(orderId, paid);
    expect(done.statusCode, done.body).toBe(200);
    expect(await succeededChargesOf(orderId)).toHaveLength(1);
  });

  it("cascades a soft decline to the next provider; both decline: one decline counted, one payment.failed listing the attempts", async () => {
    const orderId = await initialized(brandId, "vault_gateway_a");
    const response = await pay(payBody(orderId, "4000000000000002"), freshAddress());
    expect(response.statusCode).toBe(402);
    expect(response.json()).toMatchObject({ error: "Payment failed: card_declined", code: "PAYMENT_FAILED", details: "card_declined" });
    expect((await attemptsOf(orderId)).map(({ provider, result, declineCode, declineClass, cascadeIndex }) => ({ provider, result, declineCode, declineClass, cascadeIndex }))).toEqual([
      { provider: "vault_gateway_a", result: "declined", declineCode: "card_declined", declineClass: "soft", cascadeIndex: 0 },
      { provider: "vault_gateway_b", result: "declined", declineCode: "card_declined", declineClass: "soft", cascadeIndex: 1 },
    ]);
    expect(await declinesOf(orderId)).toHaveLength(1);
    const events = await failedEventsOf(orderId);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload).toMatchObject({
      orderId,
      provider: "vault_gateway_b",
      reason: "card_declined",
      attempts: [
        { provider: "vault_gateway_a", result: "declined", declineCode: "card_declined" },
        { provider: "vault_gateway_b", result: "declined", declineCode: "card_declined" },
      ],
    });
    // After a decline the buyer may try again (CONTRACT §37): the claim is gone.
    const again = await pay(payBody(orderId), freshAddress());
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().attempts).toEqual([{ provider: "vault_gateway_a", result: "approved", declineCode: null }]);
  });

  it("does not cascade a hard decline", async () => {
    const orderId = await initialized(brandId, "vault_gateway_a");
    // The 3-D Secure test card is authentication_required (hard) outside the intent gateway.
    const response = await pay(payBody(orderId, "4000000000003220"), freshAddress());
    expect(response.statusCode).toBe(402);
    expect(response.json()).toMatchObject({ code: "PAYMENT_FAILED", details: "authentication_required" });
    expect((await attemptsOf(orderId)).map((a) => [a.provider, a.declineCode, a.declineClass])).toEqual([["vault_gateway_a", "authentication_required", "hard"]]);
  });

  it("counts a cascaded decline once toward the card-testing limit, and refuses before any provider at the limit", async () => {
    const orderId = await initialized(brandId, "vault_gateway_a");
    const remoteAddress = freshAddress();
    for (let i = 0; i < 5; i += 1) expect((await pay(payBody(orderId, "4000000000000002"), remoteAddress)).statusCode).toBe(402);
    expect(await declinesOf(orderId)).toHaveLength(5);
    expect(await attemptsOf(orderId)).toHaveLength(10);
    const refused = await pay(payBody(orderId), remoteAddress);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: "TOO_MANY_DECLINES" });
    expect(await attemptsOf(orderId)).toHaveLength(10);
  });

  it("counts the address's declines by card (issue 36 item 7): one card declined on many orders leaves the address's other buyers paying", async () => {
    const remoteAddress = freshAddress();
    // 12 declines from one address, one card (typed two ways), on 12 orders: one card toward DECLINE_ADDRESS_CARD_LIMIT.
    for (let i = 0; i < 12; i += 1) {
      const orderId = await initialized(brandId, "vault_gateway_a");
      expect((await pay(payBody(orderId, i % 2 ? "4000 0000 0000 0002" : "4000000000000002"), remoteAddress)).statusCode).toBe(402);
      const [row] = await declinesOf(orderId);
      expect(row!.cardFingerprint).toMatch(/^[0-9a-f]{64}$/);
    }
    const other = await initialized(brandId, "vault_gateway_a");
    expect((await pay(payBody(other), remoteAddress)).statusCode).toBe(200);
  });

  it("replays an identical repeat, refuses another card or body for a paid order (409) and never charges a completed one", async () => {
    const orderId = await initialized(brandId, "vault_gateway_a");
    const body = payBody(orderId);
    const first = await pay(body, freshAddress());
    expect(first.statusCode, first.body).toBe(200);
    const repeat = await pay(body, freshAddress());
    expect(repeat.json()).toEqual(first.json());
    const otherCard = await pay(payBody(orderId, "5555555555554444"), freshAddress());
    expect(otherCard.statusCode).toBe(409);
    expect(otherCard.json()).toMatchObject({ code: "ALREADY_PAID" });
    const otherBuyer = await pay({ ...body, customer: { ...customer, email: "mallory@example.com" } }, freshAddress());
    expect(otherBuyer.json()).toMatchObject({ code: "ALREADY_PAID" });

    expect((await complete(orderId, first.json())).statusCode).toBe(200);
    const afterCompletion = await pay(payBody(orderId, "5555555555554444"), freshAddress());
    expect(afterCompletion.json()).toMatchObject({ code: "ALREADY_PAID" });
    expect(await succeededChargesOf(orderId)).toHaveLength(1);
    expect(await db().select().from(orders).where(eq(orders.orderId, orderId))).toHaveLength(1);
  });

  it("refuses an orderId without an initialized checkout, and a completed order paid elsewhere", async () => {
    const missing = await pay(payBody("nobody-initialized-this"), freshAddress());
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: "CHECKOUT_NOT_FOUND" });
    expect(await db().select().from(orderCharges).where(eq(orderCharges.orderId, "nobody-initialized-this"))).toHaveLength(0);

    // Paid and completed through a provider endpoint (no pay claim of this body): never charged again.
    const orderId = await initialized(brandId, "vault_gateway_b");
    const paid = await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: AMOUNT, currency: "USD", ...card(), customer, billingAddress: address }, { remoteAddress: freshAddress() });
    expect(paid.statusCode, paid.body).toBe(200);
    expect((await complete(orderId, { provider: "vault_gateway_b", transactionId: paid.json().transactionId, providerOrderId: "" })).statusCode).toBe(200);
    const again = await pay(payBody(orderId), freshAddress());
    expect(again.json()).toMatchObject({ code: "ALREADY_PAID" });
    expect(await succeededChargesOf(orderId)).toHaveLength(1);
  });

  it("validates the card before any provider (400 naming the field) and lets the claim go", async () => {
    const orderId = await initialized(brandId, "vault_gateway_a");
    const response = await pay({ ...payBody(orderId), cardNumber: "4242424242424241" }, freshAddress());
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "cardNumber" });
    expect(await attemptsOf(orderId)).toHaveLength(0);
    expect((await pay(payBody(orderId), freshAddress())).statusCode).toBe(200);
  });

  it("moves the checkout to the provider that charged, so complete verifies there", async () => {
    // Initialized at hosted_store (takes no card here): the route's first card-taking provider charges.
    const orderId = await initialized(brandId, "hosted_store");
    const response = await pay(payBody(orderId), freshAddress());
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ provider: "vault_gateway_a" });
    const [row] = await db().select().from(checkouts).where(eq(checkouts.orderId, orderId));
    expect(row).toMatchObject({ provider: "vault_gateway_a", providerOrderId: response.json().providerOrderId });
    expect((await complete(orderId, response.json())).statusCode).toBe(200);
  });

  it.runIf(testEngine === "postgres")("charges once for 20 concurrent identical pays", async () => {
    const orderId = await initialized(brandId, "vault_gateway_a");
    const body = payBody(orderId);
    const answers = await Promise.all(Array.from({ length: 20 }, () => pay(body, freshAddress())));
    const ok = answers.filter((a) => a.statusCode === 200);
    expect(ok.length).toBeGreaterThan(0);
    for (const a of answers) if (a.statusCode !== 200) expect(a.json()).toMatchObject({ code: "REQUEST_IN_PROGRESS" });
    expect(new Set(ok.map((a) => a.json().transactionId)).size).toBe(1);
    expect(await succeededChargesOf(orderId)).toHaveLength(1);
    expect(await attemptsOf(orderId)).toHaveLength(1);
  });
});

describe("a checkout whose token names its provider", () => {
  it("never cascades", async () => {
    const { brandId } = await createBrand(t, { providers: [{ provider: "vault_gateway_a" }, { provider: "vault_gateway_b" }] });
    const orderId = await initialized(brandId, "vault_gateway_b", { provider: "vault_gateway_b" });
    const response = await pay(payBody(orderId, "4000000000000002"), freshAddress());
    expect(response.statusCode).toBe(402);
    expect((await attemptsOf(orderId)).map((a) => a.provider)).toEqual(["vault_gateway_b"]);
  });
});

describe("the intent gateway first", () => {
  let brandId: string;
  beforeAll(async () => {
    ({ brandId } = await createBrand(t, { providers: [{ provider: "intent_gateway" }, { provider: "order_crm_b" }, { provider: "cart_gateway" }] }));
  });

  it("answers a 3-D Secure step with its redirect and does not cascade it", async () => {
    const orderId = await initialized(brandId, "intent_gateway");
    const response = await pay({ ...payBody(orderId, "4000000000003220"), returnUrl: "/checkout/tok" }, freshAddress());
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ status: "requires_action", provider: "intent_gateway", attempts: [{ provider: "intent_gateway", result: "requires_action" }] });
    expect(response.json().nextAction.url).toEqual(expect.any(String));
    expect((await attemptsOf(orderId)).map((a) => a.result)).toEqual(["requires_action"]);
    expect(await declinesOf(orderId)).toHaveLength(0);
  });

  it("cascades from the intent gateway to a CRM, which makes its own order", async () => {
    const orderId = await initialized(brandId, "intent_gateway");
    const response = await pay(payBody(orderId, "4000000000000002"), freshAddress());
    expect(response.statusCode).toBe(402);
    expect((await attemptsOf(orderId)).map((a) => [a.provider, a.result])).toEqual([
      ["intent_gateway", "declined"],
      ["order_crm_b", "declined"],
    ]);
    const paid = await pay(payBody(orderId), freshAddress());
    expect(paid.statusCode, paid.body).toBe(200);
    expect((await complete(orderId, paid.json())).statusCode).toBe(200);
  });

  it("charges order_crm_a, cart_gateway and order_crm_b for a checkout initialized elsewhere (each makes its own order)", async () => {
    for (const provider of ["order_crm_a", "cart_gateway", "order_crm_b"] as const) {
      const { brandId: only } = await createBrand(t, { providers: [{ provider }, { provider: "hosted_store" }] });
      const orderId = await initialized(only, "hosted_store");
      const response = await pay(payBody(orderId), freshAddress());
      expect(response.statusCode, `${provider}: ${response.body}`).toBe(200);
      expect(response.json()).toMatchObject({ provider, status: "succeeded" });
      const done = await complete(orderId, response.json());
      expect(done.statusCode, `${provider}: ${done.body}`).toBe(200);
    }
  });
});

describe("POST /api/checkout/providers", () => {
  it("lists what the token allows, card-taking providers first; the page initializes with the first", async () => {
    const { brandId } = await createBrand(t, { providers: [{ provider: "hosted_store" }, { provider: "order_crm_b" }, { provider: "vault_gateway_a", enabled: false }] });
    const listed = await post(t, "/api/checkout/providers", { token: await signToken(t, orderClaims({ brandId })) });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json()).toEqual({ providers: ["order_crm_b", "hosted_store"] });
    // A brand that enabled none allows all seven (CONTRACT §4): vault_gateway_b first, as the page always started.
    const all = await post(t, "/api/checkout/providers", { token: await signToken(t, orderClaims()) });
    expect(all.json().providers[0]).toBe("vault_gateway_b");
    expect(all.json().providers.at(-1)).toBe("hosted_store");
    const named = await post(t, "/api/checkout/providers", { token: await signToken(t, orderClaims({ brandId, provider: "cart_gateway" })) });
    expect(named.json()).toEqual({ providers: ["cart_gateway"] });
    const forged = await post(t, "/api/checkout/providers", { token: "not-a-token" });
    expect(forged.statusCode).toBe(401);
    expect(forged.json()).toMatchObject({ code: "INVALID_TOKEN" });
  });
});
