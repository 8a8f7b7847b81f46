// The demo store's checkout page (docs/providers.md "hosted_store"): a draft from initialize is paid
// with a card on /demo/hosted-store/<id> and the buyer returns to the checkout page with storeOrderId;
// complete-checkout then replays that payment (one charge) and complete creates the order.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { post } from "../../../test/support/provider-payments.js";
import { demoProviderRecords, paymentDeclines } from "../../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const RETURN = "/checkout/header.payload.signature";

async function draft() {
  const claims = orderClaims({ amount: 4200, currency: "GBP" });
  const init = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "hosted_store" });
  expect(init.statusCode, init.body).toBe(200);
  const { checkoutUrl, providerOrderId, demo } = json(init);
  expect(demo).toBe(true);
  const path = new URL(checkoutUrl).pathname;
  expect(path).toBe(`/demo/hosted-store/${providerOrderId}`);
  return { orderId: claims.orderId as string, storeOrderId: providerOrderId as string, path };
}

const pay = (path: string, fields: Record<string, string>) =>
  t.app.inject({ method: "POST", url: path, payload: new URLSearchParams({ cardExp: "12 / 31", cardCvv: "123", return_url: RETURN, ...fields }).toString(), headers: { "content-type": "application/x-www-form-urlencoded" } });
const chargesOf = async (orderId: string) => (await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, orderId))).filter((r) => r.kind === "charge");

describe("demo store checkout page", () => {
  it("shows the draft's amount and a card form; paying returns to the checkout, which completes with one charge", async () => {
    const { orderId, storeOrderId, path } = await draft();
    const page = await t.app.inject({ method: "GET", url: `${path}?return_url=${encodeURIComponent(RETURN)}` });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.body).toContain("£42.00");
    expect(page.body).toContain('autocomplete="cc-number"');
    expect(page.body).toContain(`value="${RETURN}"`);

    const paid = await pay(path, { cardNumber: "4242 4242 4242 4242" });
    expect(paid.statusCode, paid.body).toBe(303);
    expect(paid.headers.location).toBe(`${RETURN}?storeOrderId=${storeOrderId}`);
    // The checkout page's complete-checkout replays the payment; paying the page again charges nothing more.
    const completed = await post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId, orderId });
    expect(completed.statusCode, completed.body).toBe(200);
    expect((await pay(path, { cardNumber: "4242424242424242" })).statusCode).toBe(303);
    const again = await post(t, "/api/providers/hosted_store/complete-checkout", { storeOrderId, orderId });
    expect(json(again).transactionId).toBe(json(completed).transactionId);
    expect(await chargesOf(orderId)).toHaveLength(1);
    // A paid draft's page sends the buyer back instead of taking a card.
    const reopened = await t.app.inject({ method: "GET", url: `${path}?return_url=${encodeURIComponent(RETURN)}` });
    expect(reopened.statusCode).toBe(303);

    const done = await post(t, "/api/checkout/complete", {
      orderId,
      transactionId: json(completed).transactionId,
      providerOrderId: storeOrderId,
      provider: "hosted_store",
      customerEmail: "ada@example.com",
      customerName: "Ada Lovelace",
      amount: 4200,
      currency: "GBP",
    });
    expect(done.statusCode, done.body).toBe(200);
  });

  it("a declined test card, a bad number or expiry stays on the page with a sentence and charges nothing", async () => {
    const { orderId, path } = await draft();
    const declined = await pay(path, { cardNumber: "4000000000000002" });
    expect(declined.statusCode).toBe(402);
    expect(declined.body).toContain("Your card was declined. Try another card.");
    const badNumber = await pay(path, { cardNumber: "4242424242424241" });
    expect(badNumber.statusCode).toBe(400);
    expect(badNumber.body).toContain("Enter a valid card number.");
    const expired = await pay(path, { cardNumber: "4242424242424242", cardExp: "01 / 20" });
    expect(expired.statusCode).toBe(400);
    expect(expired.body).toContain("The card has expired.");
    expect(await chargesOf(orderId)).toHaveLength(0);
    expect(await t.deps.database.db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId))).toHaveLength(1);
  });

  it("returns only to this service's checkout page; an unknown draft is 404", async () => {
    const { path, storeOrderId } = await draft();
    const paid = await pay(path, { cardNumber: "4242424242424242", return_url: "https://evil.example/checkout/x" });
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe(`/?storeOrderId=${storeOrderId}`);
    for (const url of ["/demo/hosted-store/hs_ord_forged", "/demo/hosted-store/pi_demo_x"]) {
      expect((await t.app.inject({ method: "GET", url })).statusCode).toBe(404);
      expect((await pay(url, { cardNumber: "4242424242424242" })).statusCode).toBe(404);
    }
  });
});

describe("order_crm_b without campaignId (the hosted checkout page's payment)", () => {
  it("pays in demo mode with the demo campaign", async () => {
    const claims = orderClaims({ amount: 3000, currency: "USD" });
    await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "order_crm_b" });
    const res = await post(t, "/api/providers/order_crm_b/process-payment", {
      orderId: claims.orderId,
      customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" },
      billingAddress: { line1: "1 Main St", city: "London", state: "LDN", postalCode: "N1 1AA", country: "GB" },
      lineItems: [{ productId: "p1", quantity: 1, price: 3000 }],
      cardNumber: "4242424242424242",
      cardExpMonth: "12",
      cardExpYear: "2031",
      cardCvv: "123",
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ success: true, demo: true });
  });
});
