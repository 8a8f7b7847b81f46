// Issue 31 item 3 (V7): the public token generator re-priced a merchant's open default-brand API
// checkout from 99 900 to 1 and completed it. It now mints only new orderIds (409 ORDER_ID_TAKEN for
// one the default brand has a checkout for, of any origin), and its token never takes over a checkout
// of another origin at initialize either (a token minted before the merchant's checkout existed).
import { eq } from "drizzle-orm";
import { decodeJwt, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner, type Registered } from "../../test/support/admin.js";
import { post } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";
import { createApiKey, withKey } from "../../test/support/merchant.js";
import { card } from "../../test/support/provider-payments.js";
import { checkouts, DEFAULT_BRAND_ID } from "../db/schema/index.js";

let t: TestApp;
let owner: Registered;
let apiKey: string;
let signingKey: { kid: string; secret: string };
beforeAll(async () => {
  t = await buildTestApp();
  // The first registration adopts the default organization (CONTRACT §27): this merchant sells on the default brand.
  owner = await registerOwner(t, "Default shop");
  expect(owner.brandId).toBe(DEFAULT_BRAND_ID);
  apiKey = (await createApiKey(t, owner.session)).secret;
  const created = json(await call(t, "POST", "/api/admin/signing-keys", { session: owner.session }));
  signingKey = { kid: created.signingKey.kid, secret: created.secret };
});
afterAll(() => t.close());

const PRICE = 99_900;
const TAKEN = { error: "orderId already has a checkout", code: "ORDER_ID_TAKEN", details: "orderId" };
let seq = 0;
const nextOrderId = (label: string) => `gen-${label}-${++seq}`;

const generate = (orderId: string, total = 1) => post(t, "/api/token/generate", { orderInfo: { orderId, total, currency: "USD", productName: "Cheap" } });
const initialize = (token: string) => post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
const apiCheckout = async (orderId: string) => {
  const res = await withKey(t, "POST", "/api/v1/checkouts", apiKey, { orderId, amount: PRICE, currency: "USD", productName: "Sofa" });
  expect(res.statusCode, res.body).toBe(201);
  return json(res) as { id: string; token: string };
};
async function signingKeyToken(orderId: string): Promise<string> {
  const now = Math.floor(t.clock.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 3600, orderId, amount: PRICE, currency: "USD", productName: "Sofa" })
    .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: signingKey.kid })
    .sign(new TextEncoder().encode(signingKey.secret));
}
async function linkOrderId(): Promise<string> {
  const link = json(await call(t, "POST", "/api/admin/payment-links", { session: owner.session, body: { productName: "Sofa", price: PRICE, currency: "USD" } })).link;
  const opened = await t.app.inject({ method: "GET", url: new URL(link.url).pathname });
  const token = opened.headers.location!.replace(/^\/checkout\//, "");
  expect((await initialize(token)).statusCode).toBe(200);
  return decodeJwt(token).orderId as string;
}
const rowOf = async (orderId: string) => (await t.deps.database.db.select().from(checkouts).where(eq(checkouts.orderId, orderId)))[0];
const v1View = async (id: string) => json(await withKey(t, "GET", `/api/v1/checkouts/${id}`, apiKey));

describe("the public generator and orderIds of other origins", () => {
  it("V7: refuses the orderId of a merchant's open API checkout, opened or not, and leaves its price as it is", async () => {
    const orderId = nextOrderId("api");
    const created = await apiCheckout(orderId);
    const before = await generate(orderId);
    expect(before.statusCode).toBe(409);
    expect(json(before)).toMatchObject(TAKEN);

    expect((await initialize(created.token)).statusCode).toBe(200);
    expect(json(await generate(orderId))).toMatchObject(TAKEN);
    expect(await rowOf(orderId)).toMatchObject({ amountCents: PRICE, status: "initialized" });
    expect(await v1View(created.id)).toMatchObject({ amount: PRICE, status: "initialized" });
  });

  it("refuses the orderId of a checkout made with the brand's signing key, and of one opened from a payment link", async () => {
    const signed = nextOrderId("kid");
    expect((await initialize(await signingKeyToken(signed))).statusCode).toBe(200);
    expect(json(await generate(signed))).toMatchObject(TAKEN);
    expect(await rowOf(signed)).toMatchObject({ amountCents: PRICE });

    const linked = await linkOrderId();
    expect(json(await generate(linked))).toMatchObject(TAKEN);
    expect(await rowOf(linked)).toMatchObject({ amountCents: PRICE });
  });

  it("a token generated before the merchant's checkout existed cannot take it over at initialize (409), nor pay it", async () => {
    const viaApi = nextOrderId("early-api");
    const early = json(await generate(viaApi)).token as string;
    const created = await apiCheckout(viaApi);
    const refused = await initialize(early);
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toMatchObject(TAKEN);
    expect(await rowOf(viaApi)).toBeUndefined();
    expect(await v1View(created.id)).toMatchObject({ amount: PRICE, status: "open" });

    const viaKey = nextOrderId("early-kid");
    const earlyToo = json(await generate(viaKey)).token as string;
    expect((await initialize(await signingKeyToken(viaKey))).statusCode).toBe(200);
    expect(json(await initialize(earlyToo))).toMatchObject(TAKEN);
    expect(await rowOf(viaKey)).toMatchObject({ amountCents: PRICE });
    // The one-cent payment the attacker would make next is refused too: not the checkout's amount.
    const cent = await post(t, "/api/providers/vault_gateway_b/process-payment", { orderId: viaKey, amount: 1, ...card() });
    expect(json(cent)).toMatchObject({ code: "VALIDATION_ERROR", details: "amount" });
  });

  it("still mints new orderIds, and its own checkout can be opened again", async () => {
    const orderId = nextOrderId("fresh");
    const generated = await generate(orderId, 500);
    expect(generated.statusCode, generated.body).toBe(200);
    const token = json(generated).token as string;
    expect((await initialize(token)).statusCode).toBe(200);
    expect((await initialize(token)).statusCode).toBe(200);
    // Once it has a checkout, the orderId is no longer new.
    expect(json(await generate(orderId, 500))).toMatchObject(TAKEN);
  });
});
