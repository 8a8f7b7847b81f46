// CONTRACT §25: every card-taking provider endpoint treats the demo test cards alike, refuses
// unusable cards with 400 VALIDATION_ERROR naming the field, and answers a decline with the 402 body
// and a `payment.failed` outbox event, and the ledger never holds a card number.
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/support/app.js";
import { AMOUNT, card, CARD_ENDPOINTS, post } from "../../../test/support/provider-payments.js";
import { brands, checkouts, demoProviderRecords, organizations, outboxEvents, paymentDeclines } from "../../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

// A fresh order id and client address per attempt, so the card-testing limit (§21) never interferes.
let sequence = 0;
const fresh = () => {
  sequence += 1;
  return { orderId: `cards-${sequence}`, remoteAddress: `10.1.${Math.floor(sequence / 250)}.${sequence % 250}` };
};

// With the class of the normalised decline (issue 34, docs/orchestration.md "Decline codes"); the demo's provider code is its reason.
const DECLINING = [
  ["4000000000000002", "card_declined", "soft"],
  ["4000000000009995", "insufficient_funds", "hard"],
  ["4000000000009920", "lost_or_stolen", "hard"],
  ["4000000000009938", "incorrect_cvc", "hard"],
] as const;

async function failedEventsFor(orderId: string) {
  return t.deps.database.db.select().from(outboxEvents).where(and(eq(outboxEvents.type, "payment.failed"), sql`${outboxEvents.payload}->>'orderId' = ${orderId}`));
}

describe.each(CARD_ENDPOINTS)("$name", (endpoint) => {
  it("accepts a Luhn-valid card, with a two-digit expiry year too", async () => {
    for (const year of ["2031", "31"]) {
      const { orderId, remoteAddress } = fresh();
      const response = await endpoint.pay(t, orderId, card("5555555555554444", { cardExpYear: year }), { remoteAddress });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json().success).toBe(true);
    }
  });

  it("accepts 4000000000000341 (only its later saved-method charges decline)", async () => {
    const { orderId, remoteAddress } = fresh();
    const response = await endpoint.pay(t, orderId, card("4000000000000341"), { remoteAddress });
    expect(response.statusCode, response.body).toBe(200);
  });

  it.each(DECLINING)("declines %s with %s (%s): 402, a decline record and a payment.failed event, with the normalised codes", async (number, reason, declineClass) => {
    const { orderId, remoteAddress } = fresh();
    const response = await endpoint.pay(t, orderId, card(number), { remoteAddress });
    expect(response.statusCode).toBe(402);
    const codes = { declineCode: reason, declineClass, providerCode: reason };
    expect(response.json()).toMatchObject({ error: `Payment failed: ${reason}`, code: "PAYMENT_FAILED", details: reason, ...codes });

    const events = await failedEventsFor(orderId);
    expect(events).toHaveLength(1);
    expect(events[0]!.brandId).toBe("brand_default");
    expect(events[0]!.payload).toEqual({ orderId, provider: endpoint.provider, reason, ...codes, amount: AMOUNT, currency: "USD", livemode: false, metadata: {}, checkoutMetadata: {} });

    const declines = await t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId));
    expect(declines).toMatchObject([{ orderId, clientAddress: remoteAddress, reason, ...codes }]);
  });

  // Issue 34: soft declines at one vault gateway only, so a cascade can be shown in either direction.
  it.each([
    ["4000000000001018", "vault_gateway_a", "do_not_honor"],
    ["4000000000001026", "vault_gateway_b", "issuer_unavailable"],
  ] as const)("%s soft-declines at %s only (%s), succeeds elsewhere", async (number, decliningAt, reason) => {
    const { orderId, remoteAddress } = fresh();
    const response = await endpoint.pay(t, orderId, card(number), { remoteAddress });
    if (endpoint.provider !== decliningAt) {
      expect(response.statusCode, response.body).toBe(200);
      return;
    }
    expect(response.statusCode).toBe(402);
    expect(response.json()).toMatchObject({ code: "PAYMENT_FAILED", details: reason, declineCode: reason, declineClass: "soft", providerCode: reason });
    expect((await failedEventsFor(orderId))[0]!.payload).toMatchObject({ reason, declineCode: reason, declineClass: "soft", providerCode: reason });
  });

  it("treats 4000000000003220 as 3-D Secure: requires_action on the intent gateway, authentication_required elsewhere", async () => {
    const { orderId, remoteAddress } = fresh();
    const response = await endpoint.pay(t, orderId, card("4000000000003220"), { remoteAddress });
    if (endpoint.provider !== "intent_gateway") {
      expect(response.statusCode).toBe(402);
      expect(response.json()).toMatchObject({ error: "Payment failed: authentication_required", code: "PAYMENT_FAILED", details: "authentication_required" });
      expect(await failedEventsFor(orderId)).toHaveLength(1);
      return;
    }
    expect(response.statusCode, response.body).toBe(200);
    const paymentIntentId = response.json().paymentIntentId;
    // Reading the intent afterwards reports the same step still to take.
    const status = await post(t, "/api/providers/intent_gateway/confirm", { paymentIntentId }, { remoteAddress });
    expect(status.json()).toMatchObject({ success: true, status: "requires_action", paymentIntentId, orderId });
    expect(await failedEventsFor(orderId)).toHaveLength(0);
  });

  it.each([
    [{ cardNumber: "4242424242424241" }, "cardNumber"],
    [{ cardExpMonth: "0" }, "cardExpMonth"],
    [{ cardExpMonth: "13" }, "cardExpMonth"],
    [{ cardExpYear: "2025" }, "cardExpYear"],
    [{ cardExpYear: "25" }, "cardExpYear"],
    [{ cardExpMonth: "10", cardExpYear: "2026" }, "cardExpMonth"],
    [{ cardExpMonth: "10", cardExpYear: "26" }, "cardExpMonth"],
    [{ cardExpYear: "203" }, "cardExpYear"],
  ])("refuses %o with 400 VALIDATION_ERROR naming %s, and charges nothing", async (overrides, field) => {
    const { orderId, remoteAddress } = fresh();
    const response = await endpoint.pay(t, orderId, card("4242424242424242", overrides), { remoteAddress });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "VALIDATION_ERROR", details: field });
    const charges = await t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, orderId), eq(demoProviderRecords.kind, "charge")));
    expect(charges).toHaveLength(0);
  });

  it("refuses a missing card field with 400 naming it", async () => {
    const { orderId, remoteAddress } = fresh();
    const { cardCvv: _omitted, ...withoutCvv } = card();
    const response = await endpoint.pay(t, orderId, withoutCvv, { remoteAddress });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "cardCvv" });
  });
});

describe("payment.failed", () => {
  it("belongs to the brand of the checkout found for the orderId", async () => {
    const db = t.deps.database.db;
    const now = new Date(t.clock.now());
    await db.insert(organizations).values({ id: "org_cards", name: "Cards", slug: "cards", createdAt: now });
    await db.insert(brands).values({ id: "brand_cards", organizationId: "org_cards", name: "Cards", slug: "cards", createdAt: now });
    await db.insert(checkouts).values({
      id: "chk_cards",
      brandId: "brand_cards",
      orderId: "cards-branded",
      tokenHash: "x",
      claims: {},
      amountCents: AMOUNT,
      currency: "USD",
      status: "initialized",
      webhookUrl: "https://merchant.example/hook",
      tokenExpiresAt: now,
      createdAt: now,
      updatedAt: now,
    });
    const response = await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId: "cards-branded", amount: AMOUNT, currency: "USD", ...card("4000000000000002") }, { remoteAddress: "10.9.9.9" });
    expect(response.statusCode).toBe(402);
    const [event] = await failedEventsFor("cards-branded");
    expect(event).toMatchObject({ brandId: "brand_cards", checkoutId: "chk_cards", webhookUrl: "https://merchant.example/hook" });
  });
});

describe("the demo ledger", () => {
  it("never holds a card number or CVV, only the last four digits", async () => {
    const rows = await t.deps.database.db.select().from(demoProviderRecords);
    const dump = JSON.stringify(rows);
    expect(rows.length).toBeGreaterThan(20);
    for (const number of ["4242424242424242", "5555555555554444", "4000000000000002", "4000000000009995", "4000000000003220", "4000000000000341", "4242424242424241"]) {
      expect(dump).not.toContain(number);
    }
    expect(rows.some((row) => row.cardLast4 === "0341")).toBe(true);
    const events = JSON.stringify(await t.deps.database.db.select().from(outboxEvents));
    expect(events).not.toContain("4000000000000002");
  });
});
