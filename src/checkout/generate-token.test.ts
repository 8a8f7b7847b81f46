// SPEC "Token generate" and CONTRACT §5, §17, §22: a demo token and short link from optional members,
// the short link's redirect, its 404s, Idempotency-Key, and no generator in live mode.
import { jwtVerify } from "jose";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, TEST_TOKEN_SECRET, type TestApp } from "../../test/support/app.js";
import { post } from "../../test/support/checkout.js";
import { shortLinks } from "../db/schema/index.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const generate = (body: unknown, headers: Record<string, string> = {}) => post(t, "/api/token/generate", body, headers);
const claimsOf = async (token: string) => (await jwtVerify(token, new TextEncoder().encode(TEST_TOKEN_SECRET), { currentDate: new Date(t.clock.now()) })).payload;

describe("POST /api/token/generate", () => {
  it("answers exactly success, code, checkoutUrl, token and payload from the given order", async () => {
    const body = {
      orderInfo: { orderId: "gen-1", total: 12_345, currency: "eur", productName: "Lamp", productDescription: "Bright" },
      lineItems: [{ id: "sku-1", name: "Lamp", quantity: 1, unitPrice: 12_345, description: "Bright" }],
      customer: { email: "jane@example.com", firstName: "Jane" },
      salesAttribution: { salespersonId: "sp_1", salespersonName: "Sam", commissionRate: 0.1 },
    };
    const res = await generate(body);
    expect(res.statusCode).toBe(200);
    const out = json(res);
    expect(Object.keys(out).sort()).toEqual(["checkoutUrl", "code", "payload", "success", "token"]);
    expect(out.success).toBe(true);
    expect(out.payload).toEqual({ orderId: "gen-1", total: 12_345, currency: "EUR" });
    expect(out.checkoutUrl).toBe(`http://checkout.test/c/${out.code}`);
    // At least 64 random bits: 12 bytes in base64url are 16 characters.
    expect(out.code).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    const claims = await claimsOf(out.token);
    expect(claims).toMatchObject({ orderId: "gen-1", amount: 12_345, currency: "EUR", productName: "Lamp", productDescription: "Bright", customer: body.customer, salesAttribution: body.salesAttribution, lineItems: body.lineItems });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(claims.iat).toBe(Math.floor(t.clock.now() / 1000));
  });

  it("fills missing members with demo data", async () => {
    const out = json(await generate({}));
    expect(out.payload.orderId).toMatch(/^demo_/);
    expect(out.payload.total).toBeGreaterThan(0);
    expect(out.payload.currency).toBe("USD");
    const claims = await claimsOf(out.token);
    expect(typeof claims.productName).toBe("string");
    expect(claims.amount).toBe(out.payload.total);
    expect(claims.customer).toBeUndefined();
    expect(json(await generate({})).payload.orderId).not.toBe(out.payload.orderId);
  });

  it("takes the total from the line items when orderInfo has none", async () => {
    const out = json(await generate({ lineItems: [{ id: "a", name: "A", quantity: 2, unitPrice: 700 }, { id: "b", name: "B", quantity: 1, unitPrice: 100 }] }));
    expect(out.payload.total).toBe(1500);
  });

  it("makes a token initialize accepts", async () => {
    const out = json(await generate({ orderInfo: { total: 999 } }));
    const res = await post(t, "/api/checkout/initialize", { token: out.token, provider: "vault_gateway_b" });
    expect(res.statusCode).toBe(200);
  });

  it("refuses wrongly typed members", async () => {
    const res = await generate({ orderInfo: { total: "100" } });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "orderInfo.total" });
  });

  it("replays for the same Idempotency-Key and body, and refuses another body with 422", async () => {
    const body = { orderInfo: { orderId: "idem-gen", total: 100 } };
    const first = await generate(body, { "idempotency-key": "gen-key-1" });
    const again = await generate(body, { "idempotency-key": "gen-key-1" });
    expect(json(again)).toEqual(json(first));
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect((await t.deps.database.db.select().from(shortLinks).where(eq(shortLinks.code, json(first).code))).length).toBe(1);
    const other = await generate({ orderInfo: { orderId: "idem-gen", total: 200 } }, { "idempotency-key": "gen-key-1" });
    expect(other.statusCode).toBe(422);
    expect(json(other).error).toBe("Idempotency key reused with different parameters");
  });
});

describe("GET /c/:code", () => {
  it("redirects to the checkout page with the token", async () => {
    const out = json(await generate({}));
    const res = await t.app.inject({ method: "GET", url: `/c/${out.code}` });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/checkout/${out.token}`);
  });

  it("answers 404 for an unknown code", async () => {
    const res = await t.app.inject({ method: "GET", url: "/c/unknown-code-123" });
    expect(res.statusCode).toBe(404);
  });

  it("answers 404 once the token has expired", async () => {
    const out = json(await generate({}));
    t.clock.advance(3600_000 + 1000);
    const res = await t.app.inject({ method: "GET", url: `/c/${out.code}` });
    expect(res.statusCode).toBe(404);
  });
});

describe("live mode", () => {
  it("has no token generator (CONTRACT §22)", async () => {
    const live = await buildTestApp({ env: { PAYMENT_MODE: "live" } });
    try {
      const res = await live.app.inject({ method: "POST", url: "/api/token/generate", payload: {}, headers: { "content-type": "application/json" } });
      expect(res.statusCode).toBe(404);
      expect(json(res).code).toBe("NOT_FOUND");
      expect(await live.deps.database.db.select().from(shortLinks)).toHaveLength(0);
    } finally {
      await live.close();
    }
  });
});
