// Issue 31 item 9: `POST /api/v1/checkouts` took redirect targets no token may carry (CONTRACT §36):
// 201, then the buyer saw "This checkout link is not valid". Refused at creation, as payment links do.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner } from "../../test/support/admin.js";
import { post } from "../../test/support/checkout.js";
import { createApiKey, withKey } from "../../test/support/merchant.js";
import { AMOUNT } from "../../test/support/provider-payments.js";
import { merchantCheckouts, shortLinks } from "../db/schema/index.js";

let t: TestApp;
let key: string;
let brandId: string;
beforeAll(async () => {
  t = await buildTestApp();
  const shop = await registerOwner(t, "Shop");
  brandId = shop.brandId;
  key = (await createApiKey(t, shop.session)).secret;
});
afterAll(() => t.close());

let seq = 0;
const create = (overrides: Record<string, unknown>) =>
  withKey(t, "POST", "/api/v1/checkouts", key, { orderId: `v1-redirect-${++seq}`, amount: AMOUNT, currency: "USD", productName: "Plan", ...overrides });

const UNSAFE = ["javascript:alert(document.cookie)", "/thanks", "//evil.example/thanks", "https://shop.example@evil.example/thanks", "https://user:pass@shop.example/", " https://shop.example/", "data:text/html,hi"];

describe("POST /api/v1/checkouts redirect targets (CONTRACT §36)", () => {
  it.each(["successUrl", "cancelUrl"])("refuses an unsafe %s with 400 naming it, and makes nothing", async (field) => {
    const checkoutsBefore = (await t.deps.database.db.select().from(merchantCheckouts).where(eq(merchantCheckouts.brandId, brandId))).length;
    const linksBefore = (await t.deps.database.db.select().from(shortLinks).where(eq(shortLinks.brandId, brandId))).length;
    for (const url of UNSAFE) {
      const res = await create({ [field]: url });
      expect(res.statusCode, url).toBe(400);
      expect(json(res), url).toMatchObject({ error: `${field} must be an absolute http(s) URL without user name or password`, code: "VALIDATION_ERROR", details: field });
    }
    expect(await t.deps.database.db.select().from(merchantCheckouts).where(eq(merchantCheckouts.brandId, brandId))).toHaveLength(checkoutsBefore);
    expect(await t.deps.database.db.select().from(shortLinks).where(eq(shortLinks.brandId, brandId))).toHaveLength(linksBefore);
  });

  it("takes absolute http(s) targets, and the checkout they make opens", async () => {
    const res = await create({ successUrl: "https://shop.example/thanks?order=1", cancelUrl: "http://shop.example/cart" });
    expect(res.statusCode, res.body).toBe(201);
    const init = await post(t, "/api/checkout/initialize", { token: json(res).token, provider: "vault_gateway_b" });
    expect(init.statusCode, init.body).toBe(200);
  });
});
