// A cascade through the real vault gateway adapters against two fake gateways at the network
// boundary (issue 34): the first declines the card, the second charges it, and complete verifies the
// charge at the second; a gateway that refuses the connection charged nothing, so the cascade moves
// on; one that fails with a 500 may have charged, so the request ends 502 and the next is not asked.
import { createServer } from "node:net";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/support/app.js";
import { registerOwner } from "../../../test/support/admin.js";
import { orderClaims, signToken } from "../../../test/support/checkout.js";
import { call } from "../../../test/support/identity.js";
import { address, card, customer, post } from "../../../test/support/provider-payments.js";
import { orderCharges, orders, paymentAttempts } from "../../db/schema/index.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../../providers/vault-gateway-a/fake-server.js";

let t: TestApp;
let first: FakeVaultGateway;
let second: FakeVaultGateway;
let session: string;
let brandId: string;
const AMOUNT = 2500;
const DECLINED_AT_FIRST = "5555555555554444";

/** A port nothing listens on: a connection there is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const configure = (provider: string, settings: Record<string, unknown>) => call(t, "POST", "/api/admin/settings", { session, body: { provider, settings } });

beforeAll(async () => {
  [t, first, second] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeVaultGateway("fake-key-first-0001"), startFakeVaultGateway("fake-key-second-001")]);
  ({ session, brandId } = await registerOwner(t));
  first.declineCards.add(DECLINED_AT_FIRST);
  expect((await configure("vault_gateway_a", { securityKey: first.securityKey, baseUrl: first.baseUrl })).statusCode).toBe(200);
  expect((await configure("vault_gateway_b", { securityKey: second.securityKey, baseUrl: second.baseUrl })).statusCode).toBe(200);
});
afterAll(async () => {
  await t.close();
  await first.close();
  await second.close();
});

async function initialized() {
  const claims = orderClaims({ amount: AMOUNT, currency: "USD", brandId });
  const response = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "vault_gateway_a" });
  expect(response.statusCode, response.body).toBe(200);
  return claims.orderId as string;
}
const pay = (orderId: string, cardNumber: string) => post(t, "/api/checkout/pay", { orderId, ...card(cardNumber), customer, billingAddress: address }, { remoteAddress: "10.34.9.9" });
const sales = (fake: FakeVaultGateway, orderId: string) => [...fake.transactions.values()].filter((sale) => sale.orderId === orderId && sale.actionType === "sale");

describe("a cascade between two real vault gateways", () => {
  it("charges the second gateway after the first declines; complete verifies at the second", async () => {
    const orderId = await initialized();
    const response = await pay(orderId, DECLINED_AT_FIRST);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      status: "succeeded",
      provider: "vault_gateway_b",
      demo: false,
      attempts: [
        { provider: "vault_gateway_a", result: "declined", declineCode: "card_declined" },
        { provider: "vault_gateway_b", result: "approved", declineCode: null },
      ],
    });
    expect(sales(first, orderId).map((s) => s.success)).toEqual([false]);
    expect(sales(second, orderId).map((s) => s.success)).toEqual([true]);
    // The second gateway got the checkout's amount, never more of the card than it needs.
    expect(second.requests.at(-1)).toMatchObject({ path: "/api/transact.php", form: { amount: "25.00", orderid: orderId } });

    const paid = response.json();
    const done = await post(t, "/api/checkout/complete", {
      orderId,
      provider: paid.provider,
      transactionId: paid.transactionId,
      providerOrderId: paid.providerOrderId,
      customerEmail: customer.email,
      customerName: "Ada Lovelace",
      amount: AMOUNT,
      currency: "USD",
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(await t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId))).toMatchObject([{ provider: "vault_gateway_b", transactionId: paid.transactionId }]);
  });

  it("moves on from a gateway that refused the connection (nothing charged there)", async () => {
    expect((await configure("vault_gateway_a", { securityKey: first.securityKey, baseUrl: `http://127.0.0.1:${await closedPort()}` })).statusCode).toBe(200);
    try {
      const orderId = await initialized();
      const response = await pay(orderId, "4242424242424242");
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ provider: "vault_gateway_b", attempts: [{ provider: "vault_gateway_a", result: "failed" }, { provider: "vault_gateway_b", result: "approved" }] });
    } finally {
      expect((await configure("vault_gateway_a", { securityKey: first.securityKey, baseUrl: first.baseUrl })).statusCode).toBe(200);
    }
  });

  it("ends with 502 when the first gateway fails in a way that may have charged, and asks no other", async () => {
    const orderId = await initialized();
    first.failNext = "500";
    const response = await pay(orderId, "4242424242424242");
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ code: "PROVIDER_ERROR" });
    expect(sales(second, orderId)).toHaveLength(0);
    // The claim stays (abandoned) for a retry with the same key; the attempt is recorded as failed.
    expect(await t.deps.database.db.select().from(orderCharges).where(eq(orderCharges.orderId, orderId))).toMatchObject([{ state: "charging" }]);
    expect((await t.deps.database.db.select().from(paymentAttempts).where(eq(paymentAttempts.orderId, orderId))).map((a) => a.result)).toEqual(["failed"]);
  });
});
