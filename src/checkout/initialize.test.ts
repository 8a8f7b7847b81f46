// SPEC "Checkout" initialize: each provider's exact answer, the SPEC error texts, allowed providers
// (CONTRACT §4), the default brand (§27), the stored override, and the checkout.created outbox event.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { createBrand, orderClaims, post, signToken } from "../../test/support/checkout.js";
import { checkouts, DEFAULT_BRAND_ID, outboxEvents } from "../db/schema/index.js";
import { PAYMENT_PROVIDERS } from "../providers/types.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const initialize = (body: unknown) => post(t, "/api/checkout/initialize", body);
const checkoutOf = async (orderId: string) => t.deps.database.db.select().from(checkouts).where(eq(checkouts.orderId, orderId));
const eventsOf = async (checkoutId: string) => t.deps.database.db.select().from(outboxEvents).where(eq(outboxEvents.checkoutId, checkoutId));

// `demo` is not in SPEC (docs/checkout.md): the checkout page shows the test cards only in demo mode.
const MEMBERS: Record<string, string[]> = {
  intent_gateway: ["clientSecret", "demo", "provider", "providerOrderId", "success"],
  hosted_store: ["checkoutUrl", "demo", "provider", "providerOrderId", "success"],
};

describe("initialize answers", () => {
  it.each(PAYMENT_PROVIDERS)("answers %s with exactly its members", async (provider) => {
    const claims = orderClaims();
    const res = await initialize({ token: await signToken(t, claims), provider });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(Object.keys(body).sort()).toEqual(MEMBERS[provider] ?? ["demo", "provider", "providerOrderId", "success"]);
    expect(body).toMatchObject({ success: true, provider, demo: true });
    expect(typeof body.providerOrderId).toBe("string");
    expect(body.providerOrderId.length).toBeGreaterThan(0);
    if (provider === "intent_gateway") {
      expect(body.clientSecret).toMatch(/_secret_/);
      expect(res.headers["cache-control"]).toBe("no-store");
    }
    if (provider === "hosted_store") expect(body.checkoutUrl).toMatch(/^https?:\/\//);
    const [row] = await checkoutOf(claims.orderId as string);
    expect(row).toMatchObject({ provider, providerOrderId: body.providerOrderId, status: "initialized", amountCents: 5000, currency: "USD" });
  });
});

describe("missing members", () => {
  it.each([
    ["token", { provider: "intent_gateway" }],
    ["provider", { token: "x" }],
    ["both (empty object)", {}],
  ])("answers Missing token or provider without %s", async (_name, body) => {
    const res = await initialize(body);
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ error: "Missing token or provider", code: "VALIDATION_ERROR" });
  });

  it("answers Missing token or provider without any body", async () => {
    const res = await t.app.inject({ method: "POST", url: "/api/checkout/initialize" });
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe("Missing token or provider");
  });
});

describe("allowed providers", () => {
  it("allows only the token's provider claim", async () => {
    const token = await signToken(t, orderClaims({ provider: "hosted_store" }));
    const refused = await initialize({ token, provider: "intent_gateway" });
    expect(refused.statusCode).toBe(400);
    expect(json(refused)).toMatchObject({ error: "Payment provider not allowed for this checkout", code: "PROVIDER_NOT_ALLOWED" });
    expect((await initialize({ token, provider: "hosted_store" })).statusCode).toBe(200);
  });

  it("allows only the brand's enabled providers", async () => {
    const { brandId } = await createBrand(t, { providers: [{ provider: "intent_gateway" }, { provider: "vault_gateway_b", enabled: false }] });
    const token = await signToken(t, orderClaims({ brandId }));
    const refused = await initialize({ token, provider: "vault_gateway_b" });
    expect(refused.statusCode).toBe(400);
    expect(json(refused).code).toBe("PROVIDER_NOT_ALLOWED");
    expect((await initialize({ token, provider: "intent_gateway" })).statusCode).toBe(200);
  });

  it("allows every provider when the brand enables none", async () => {
    const { brandId } = await createBrand(t, { providers: [{ provider: "vault_gateway_b", enabled: false }, { provider: "email_list_a" }] });
    const token = await signToken(t, orderClaims({ brandId }));
    expect((await initialize({ token, provider: "cart_gateway" })).statusCode).toBe(200);
  });
});

describe("brands", () => {
  it("puts a token without brandId in the default brand", async () => {
    const claims = orderClaims();
    expect((await initialize({ token: await signToken(t, claims), provider: "vault_gateway_a" })).statusCode).toBe(200);
    const [row] = await checkoutOf(claims.orderId as string);
    expect(row!.brandId).toBe(DEFAULT_BRAND_ID);
  });

  it("keeps the token's brand", async () => {
    const { brandId } = await createBrand(t);
    const claims = orderClaims({ brandId });
    expect((await initialize({ token: await signToken(t, claims), provider: "vault_gateway_a" })).statusCode).toBe(200);
    expect((await checkoutOf(claims.orderId as string))[0]!.brandId).toBe(brandId);
  });

  it("refuses an unknown or deleted brand as an invalid token", async () => {
    const { brandId } = await createBrand(t, { deleted: true });
    for (const id of ["brand_nope", brandId]) {
      const res = await initialize({ token: await signToken(t, orderClaims({ brandId: id })), provider: "vault_gateway_a" });
      expect(res.statusCode).toBe(401);
      expect(json(res)).toMatchObject({ error: "Invalid token", code: "INVALID_TOKEN" });
    }
  });

  it("keeps one checkout per brand for a shared orderId", async () => {
    const { brandId } = await createBrand(t);
    const orderId = orderClaims().orderId;
    await initialize({ token: await signToken(t, orderClaims({ orderId })), provider: "vault_gateway_a" });
    await initialize({ token: await signToken(t, orderClaims({ orderId, brandId })), provider: "vault_gateway_a" });
    expect((await checkoutOf(orderId as string)).map((r) => r.brandId).sort()).toEqual([brandId, DEFAULT_BRAND_ID].sort());
  });
});

describe("stored checkout", () => {
  it("stores the request's customer and addresses over the token's", async () => {
    const claims = orderClaims({
      customer: { email: "token@example.com", firstName: "Tok", phone: "+1 555" },
      shippingAddress: { address1: "1 Token St", city: "Tokcity", state: "TS", postalCode: "11111", country: "US" },
    });
    const billingAddress = { line1: "2 Bill Rd", city: "Billtown", state: "BT", postalCode: "22222", country: "US" };
    const customer = { email: "jane@example.com", firstName: "Jane", lastName: "Doe" };
    const res = await initialize({ token: await signToken(t, claims), provider: "vault_gateway_b", customer, billingAddress });
    expect(res.statusCode).toBe(200);
    const [row] = await checkoutOf(claims.orderId as string);
    expect(row!.customer).toEqual({ email: "jane@example.com", firstName: "Jane", lastName: "Doe", phone: "+1 555" });
    expect(row!.billingAddress).toEqual(billingAddress);
    expect(row!.shippingAddress).toEqual({ line1: "1 Token St", city: "Tokcity", state: "TS", postalCode: "11111", country: "US" });

    const shippingAddress = { line1: "3 Ship Ave", line2: "Apt 4", city: "Shipville", state: "SV", postalCode: "33333", country: "CA" };
    await initialize({ token: await signToken(t, claims), provider: "vault_gateway_b", shippingAddress });
    expect((await checkoutOf(claims.orderId as string))[0]!.shippingAddress).toEqual(shippingAddress);
  });

  it("writes one checkout.created event carrying the token's webhookUrl, and updates on re-initialize", async () => {
    const claims = orderClaims({ webhookUrl: "https://merchant.example/hooks" });
    const token = await signToken(t, claims);
    await initialize({ token, provider: "intent_gateway" });
    const second = json(await initialize({ token, provider: "vault_gateway_b" }));
    const rows = await checkoutOf(claims.orderId as string);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ provider: "vault_gateway_b", providerOrderId: second.providerOrderId, webhookUrl: "https://merchant.example/hooks" });
    const events = await eventsOf(rows[0]!.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "checkout.created", brandId: DEFAULT_BRAND_ID, webhookUrl: "https://merchant.example/hooks" });
    expect(events[0]!.payload).toMatchObject({ orderId: claims.orderId, amount: 5000, currency: "USD" });
  });

  it("refuses a checkout already completed with 409", async () => {
    const claims = orderClaims();
    const token = await signToken(t, claims);
    await initialize({ token, provider: "vault_gateway_b" });
    await t.deps.database.db.update(checkouts).set({ status: "completed" }).where(eq(checkouts.orderId, claims.orderId as string));
    const res = await initialize({ token, provider: "vault_gateway_b" });
    expect(res.statusCode).toBe(409);
    expect(json(res).code).toBe("CHECKOUT_COMPLETED");
  });
});
