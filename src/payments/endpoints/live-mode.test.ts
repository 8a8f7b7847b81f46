// CONTRACT PAYMENT_MODE row: with PAYMENT_MODE=live and no credentials, every provider endpoint
// answers 409 `Payment provider not configured` (CONTRACT §39: a live object without live credentials) and charges nothing.
import { count } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/support/app.js";
import { address, AMOUNT, card, customer, post } from "../../../test/support/provider-payments.js";
import { demoProviderRecords, paymentDeclines } from "../../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { PAYMENT_MODE: "live" } });
});
afterAll(() => t.close());

const lineItems = [{ productId: "p", quantity: 1, price: AMOUNT }];
const VALID_BODIES: [string, object][] = [
  ["intent_gateway/create-intent", { amount: AMOUNT, currency: "USD", orderId: "live-1", ...card() }],
  ["intent_gateway/confirm", { paymentIntentId: "pi_demo_x", ...card() }],
  ["vault_gateway_a/process-payment", { orderId: "live-1", amount: AMOUNT, currency: "USD", ...card("4000000000000002") }],
  ["vault_gateway_a/process-upsell", { paymentMethodToken: "vga_cv_x|vga_txn_y", amount: AMOUNT, orderId: "live-2", originalOrderId: "live-1" }],
  ["order_crm_a/create-order", { orderId: "live-1", customer, shippingAddress: address, billingAddress: address, lineItems, total: AMOUNT, currency: "USD" }],
  ["order_crm_a/process-payment", { crmAOrderId: "crma_ord_x", orderId: "live-1", ...card() }],
  ["order_crm_a/confirm-order", { crmAOrderId: "crma_ord_x", orderId: "live-1" }],
  ["order_crm_b/process-payment", { orderId: "live-1", campaignId: "c", customer, billingAddress: address, lineItems, ...card() }],
  ["hosted_store/create-checkout", { orderId: "live-1", lineItems: [{ variantId: "v", quantity: 1 }], customer: { email: customer.email }, amount: AMOUNT }],
  ["hosted_store/complete-checkout", { storeOrderId: "hs_ord_x", orderId: "live-1" }],
  ["hosted_store/confirm-order", { storeOrderId: "hs_ord_x", orderId: "live-1" }],
  ["cart_gateway/create-cart", { orderId: "live-1", customer, shippingAddress: address, lineItems: [{ itemId: "i", quantity: 1, price: AMOUNT }] }],
  ["cart_gateway/process-payment", { cartOrderId: "cart_ord_x", orderId: "live-1", ...card() }],
  ["vault_gateway_b/process-payment", { orderId: "live-1", amount: AMOUNT, ...card() }],
];

describe("PAYMENT_MODE=live without credentials", () => {
  it.each(VALID_BODIES)("POST /api/providers/%s answers 409", async (path, body) => {
    const response = await post(t, `/api/providers/${path}`, body);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error: "Payment provider not configured", code: "PROVIDER_NOT_CONFIGURED" });
  });

  it("wrote nothing to the ledger and counted no decline", async () => {
    expect((await t.deps.database.db.select({ n: count() }).from(demoProviderRecords))[0]!.n).toBe(0);
    expect((await t.deps.database.db.select({ n: count() }).from(paymentDeclines))[0]!.n).toBe(0);
  });
});
