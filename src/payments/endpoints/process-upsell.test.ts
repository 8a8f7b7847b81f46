// vault_gateway_a process-upsell charges a vaulted method only for upsells of the order it was
// issued for (CONTRACT §8); anything else is 400 and charges nothing, and a 4000000000000341 method declines.
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/support/app.js";
import { AMOUNT, card, post } from "../../../test/support/provider-payments.js";
import { demoProviderRecords, outboxEvents } from "../../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const upsell = (body: Record<string, unknown>) => post(t, "/api/providers/vault_gateway_a/process-upsell", body);
const chargesFor = (orderId: string) => t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, orderId), eq(demoProviderRecords.kind, "charge")));
const vaultPayment = async (provider: string, orderId: string, cardNumber = "4242424242424242") =>
  (await post(t, `/api/providers/${provider}/process-payment`, { orderId, amount: AMOUNT, currency: "USD", ...card(cardNumber) })).json();

describe("vault_gateway_a process-upsell", () => {
  it("refuses a token issued for another order, with 400 and no charge", async () => {
    const a = await vaultPayment("vault_gateway_a", "up-a");
    await vaultPayment("vault_gateway_a", "up-b");
    const response = await upsell({ paymentMethodToken: a.paymentMethodToken, amount: 500, orderId: "up-b-u1", originalOrderId: "up-b" });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "paymentMethodToken" });
    expect(await chargesFor("up-b-u1")).toHaveLength(0);
  });

  it.each([
    ["an unknown token", "vga_cv_unknown|vga_txn_unknown"],
    ["a malformed token", "not-a-token"],
  ])("refuses %s with 400", async (_label, paymentMethodToken) => {
    const response = await upsell({ paymentMethodToken, amount: 500, orderId: "up-x-u1", originalOrderId: "up-a" });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "paymentMethodToken" });
  });

  it("refuses vault_gateway_b's token for the same order", async () => {
    const b = await vaultPayment("vault_gateway_b", "up-c");
    const response = await upsell({ paymentMethodToken: b.paymentMethodToken, amount: 500, orderId: "up-c-u1", originalOrderId: "up-c" });
    expect(response.statusCode).toBe(400);
    expect(await chargesFor("up-c-u1")).toHaveLength(0);
  });

  it("declines a method saved from 4000000000000341 with 402 and emits payment.failed", async () => {
    const risky = await vaultPayment("vault_gateway_a", "up-d", "4000000000000341");
    const response = await upsell({ paymentMethodToken: risky.paymentMethodToken, amount: 500, orderId: "up-d-u1", originalOrderId: "up-d" });
    expect(response.statusCode).toBe(402);
    const codes = { declineCode: "card_declined", declineClass: "soft", providerCode: "card_declined" };
    expect(response.json()).toMatchObject({ error: "Payment failed: card_declined", code: "PAYMENT_FAILED", details: "card_declined", ...codes });
    const events = await t.deps.database.db.select().from(outboxEvents).where(and(eq(outboxEvents.type, "payment.failed"), sql`${outboxEvents.payload}->>'orderId' = 'up-d-u1'`));
    expect(events.map((e) => e.payload)).toEqual([{ orderId: "up-d-u1", provider: "vault_gateway_a", reason: "card_declined", ...codes, amount: 500, currency: "USD", livemode: false, metadata: {}, checkoutMetadata: {} }]);
  });
});
