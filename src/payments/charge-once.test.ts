// CONTRACT §37, issue 16 hole 3: a (brand, orderId) is charged at most once successfully on every
// card-taking endpoint, whatever the Idempotency-Key header: ten concurrent identical requests made ten
// charges before. Tried as an attacker would: concurrent repeats, another card, a completed order.
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testEngine } from "../../test/support/database.js";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { address, AMOUNT, card, CARD_ENDPOINTS, customer, post } from "../../test/support/provider-payments.js";
import { demoProviderRecords, DEFAULT_BRAND_ID, orderCharges } from "../db/schema/index.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { ABANDONED_CLAIM_MS } from "./charge-once.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** Successful charges the demo providers hold for the order (their own ledger, as a real provider's dashboard would show). */
const chargesOf = async (orderId: string) =>
  (
    await t.deps.database.db
      .select()
      .from(demoProviderRecords)
      .where(and(eq(demoProviderRecords.orderId, orderId), inArray(demoProviderRecords.kind, ["charge", "payment_intent"]), eq(demoProviderRecords.status, "succeeded")))
  ).length;

let n = 0;
const nextOrderId = (label: string) => `once-${label.replace(/\W+/g, "-")}-${++n}`;

describe.each(CARD_ENDPOINTS)("$name", (endpoint) => {
  // PostgreSQL only: PGlite has one connection and runs transactions one at a time, so this race cannot fail there.
  it.runIf(testEngine === "postgres")("ten concurrent identical requests without Idempotency-Key charge once, and every one gets the first answer", async () => {
    const orderId = nextOrderId(endpoint.name);
    const body = (await endpoint.arrange(t, orderId))(card());
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(t, endpoint.url, body)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(await chargesOf(orderId)).toBe(1);
  });

  it("another attempt on a paid order is 409 ALREADY_PAID and charges nothing, with or without Idempotency-Key", async () => {
    const orderId = nextOrderId(endpoint.name);
    expect((await endpoint.pay(t, orderId, card())).statusCode).toBe(200);
    const anotherCard = await endpoint.pay(t, orderId, card("5555555555554444"));
    expect(anotherCard.statusCode).toBe(409);
    expect(anotherCard.json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
    const withKey = await endpoint.pay(t, orderId, card("5105105105105100"), { headers: { "idempotency-key": `k-${orderId}` } });
    expect(withKey.json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
    expect(await chargesOf(orderId)).toBe(1);
  });

  it("after a decline a new attempt is allowed", async () => {
    const orderId = nextOrderId(endpoint.name);
    const declined = await endpoint.pay(t, orderId, card("4000000000000002"), { remoteAddress: `10.37.0.${n}` });
    expect(declined.statusCode).toBe(402);
    const paid = await endpoint.pay(t, orderId, card(), { remoteAddress: `10.37.0.${n}` });
    expect(paid.statusCode, paid.body).toBe(200);
    expect(await chargesOf(orderId)).toBe(1);
  });

  it("a completed order is never charged again", async () => {
    const { orderId } = await completeCheckoutViaApi(t);
    const before = await chargesOf(orderId);
    const again = await endpoint.pay(t, orderId, card("5555555555554444"));
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe("ALREADY_PAID");
    expect(await chargesOf(orderId)).toBe(before);
  });
});

describe("orders paid before charge claims were kept", () => {
  it("a completed checkout without a claim row is still refused", async () => {
    const { orderId } = await completeCheckoutViaApi(t, { provider: "vault_gateway_a" });
    // The state an order completed before migration 0007 is in: completed, no claim.
    await t.deps.database.db.delete(orderCharges).where(eq(orderCharges.orderId, orderId));
    const again = await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: AMOUNT, ...card() });
    expect(again.json()).toMatchObject({ error: "Order already paid", code: "ALREADY_PAID" });
    expect(await t.deps.database.db.select().from(orderCharges).where(eq(orderCharges.orderId, orderId))).toEqual([]);
  });
});

describe("a claim left by a request that died", () => {
  const leaveClaim = (orderId: string) =>
    t.deps.database.db
      .insert(orderCharges)
      .values({ brandId: DEFAULT_BRAND_ID, orderId, provider: "vault_gateway_a", state: "charging", requestHash: "dead", providerKey: "chg_dead", createdAt: new Date(t.clock.now()) });

  it("holds the order for a minute (409 in progress), then the next attempt takes it over and charges once", async () => {
    const orderId = nextOrderId("dead");
    await leaveClaim(orderId);
    const body = { orderId, amount: AMOUNT, currency: "USD", ...card() };
    const during = await post(t, "/api/providers/vault_gateway_a/process-payment", body);
    expect(during.statusCode).toBe(409);
    expect(during.json()).toMatchObject({ error: "Request in progress", code: "REQUEST_IN_PROGRESS" });
    expect(await chargesOf(orderId)).toBe(0);

    t.clock.advance(ABANDONED_CLAIM_MS + 1_000);
    const after = await post(t, "/api/providers/vault_gateway_a/process-payment", body);
    expect(after.statusCode, after.body).toBe(200);
    expect(await chargesOf(orderId)).toBe(1);
  });

  it("the same request taking over a dead one's claim sends the provider the same idempotency key", async () => {
    const orderId = nextOrderId("dead-same");
    const body = { orderId, amount: AMOUNT, currency: "USD", ...card() };
    expect((await post(t, "/api/providers/vault_gateway_a/process-payment", body)).statusCode).toBe(200);
    // The state a process killed between the provider's answer and recording it leaves: the claim still charging.
    await t.deps.database.db
      .update(orderCharges)
      .set({ state: "charging", reply: null, paidAt: null, providerKey: "chg_dead", createdAt: new Date(t.clock.now()) })
      .where(eq(orderCharges.orderId, orderId));
    t.clock.advance(ABANDONED_CLAIM_MS + 1_000);
    expect((await post(t, "/api/providers/vault_gateway_a/process-payment", body)).statusCode).toBe(200);
    const [claim] = await t.deps.database.db.select().from(orderCharges).where(eq(orderCharges.orderId, orderId));
    expect(claim).toMatchObject({ state: "paid", providerKey: "chg_dead" });
  });
});

describe("what the claim keeps", () => {
  it("no card number in the table: the request is kept as a keyed hash, and the answer is forgotten after 24 hours", async () => {
    const orderId = nextOrderId("kept");
    const body = { orderId, amount: AMOUNT, currency: "USD", ...card("4111111111111111") };
    const paid = await post(t, "/api/providers/vault_gateway_a/process-payment", body);
    expect(paid.statusCode).toBe(200);
    const rows = await t.deps.database.db.execute(sql`select row_to_json(c)::text as row from order_charges c where order_id = ${orderId}`);
    const stored = (rows as unknown as { rows: { row: string }[] }).rows[0]!.row;
    expect(stored).not.toContain("4111111111111111");
    expect(stored).not.toContain(canonicalJson(body).slice(0, 20));

    t.clock.advance(25 * 3_600_000);
    await t.app.jobs.trigger("housekeeping");
    const [claim] = await t.deps.database.db.select().from(orderCharges).where(eq(orderCharges.orderId, orderId));
    expect(claim).toMatchObject({ state: "paid", reply: null });
    // The order stays paid: an identical repeat now is refused instead of replayed.
    expect((await post(t, "/api/providers/vault_gateway_a/process-payment", body)).json().code).toBe("ALREADY_PAID");
  });
});

describe("process-upsell", () => {
  it("charges an upsell orderId once; reusing the original orderId as the upsell's is refused", async () => {
    const original = await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId: nextOrderId("up-orig"), amount: AMOUNT, currency: "USD", customer, billingAddress: address, ...card() });
    const { orderId: originalOrderId, paymentMethodToken } = original.json();
    const upsell = { originalOrderId, paymentMethodToken, amount: 500, orderId: nextOrderId("up") };
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(t, "/api/providers/vault_gateway_a/process-upsell", upsell)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(5).fill(200));
    expect(await chargesOf(upsell.orderId)).toBe(1);
    expect((await post(t, "/api/providers/vault_gateway_a/process-upsell", { ...upsell, amount: 600 })).json().code).toBe("ALREADY_PAID");
    expect((await post(t, "/api/providers/vault_gateway_a/process-upsell", { ...upsell, orderId: originalOrderId })).json().code).toBe("ALREADY_PAID");
  });
});
