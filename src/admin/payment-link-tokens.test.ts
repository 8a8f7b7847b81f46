// Issue 31 item 4: a payment link's token kept working for its hour after the link was disabled (or
// reached its end). Initialize now follows the link, as opening it does: 410, and nothing is made.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner, type Registered } from "../../test/support/admin.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";
import { checkouts, demoProviderRecords } from "../db/schema/index.js";
import { decodeJwt } from "jose";

let t: TestApp;
let shop: Registered;
let other: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  shop = await registerOwner(t, { orgName: "Link tokens" });
  other = await registerOwner(t, { orgName: "Link tokens, other shop" });
});
afterAll(() => t.close());

const GONE = { error: "Payment link no longer available", code: "CHECKOUT_EXPIRED" };

/** A link of the shop, opened by a buyer: the token its page carries and its order id. */
async function openedLink(over: Record<string, unknown> = {}, session = shop.session) {
  const created = await call(t, "POST", "/api/admin/payment-links", { session, body: { productName: "Beans", price: 1250, currency: "EUR", ...over } });
  expect(created.statusCode, created.body).toBe(200);
  const { link } = json(created);
  const opened = await t.app.inject({ method: "GET", url: new URL(link.url).pathname });
  expect(opened.statusCode).toBe(302);
  const token = opened.headers.location!.replace(/^\/checkout\//, "");
  return { link, token, orderId: decodeJwt(token).orderId as string };
}
const initialize = (token: string) => post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
const madeFor = async (orderId: string) => ({
  checkouts: await t.deps.database.db.select().from(checkouts).where(eq(checkouts.orderId, orderId)),
  ledger: await t.deps.database.db.select().from(demoProviderRecords).where(eq(demoProviderRecords.orderId, orderId)),
});

describe("initialize with a payment link's token", () => {
  it("works while the link is active", async () => {
    const { token } = await openedLink();
    expect((await initialize(token)).statusCode).toBe(200);
  });

  it("is 410 once the link is disabled, before the provider is asked; also for a checkout opened before", async () => {
    const fresh = await openedLink();
    const started = await openedLink();
    expect((await initialize(started.token)).statusCode).toBe(200);
    for (const { link } of [fresh, started]) expect((await call(t, "POST", `/api/admin/payment-links/${link.id}/disable`, { session: shop.session })).statusCode).toBe(200);

    const refused = await initialize(fresh.token);
    expect(refused.statusCode).toBe(410);
    expect(json(refused)).toMatchObject(GONE);
    expect(await madeFor(fresh.orderId)).toEqual({ checkouts: [], ledger: [] });
    // A page reloaded after the link was turned off cannot start a payment either.
    const reloaded = await initialize(started.token);
    expect(json(reloaded)).toMatchObject(GONE);
  });

  it("is 410 once the link reached its end, though the token is still within its hour", async () => {
    const { token, orderId } = await openedLink({ expiresAt: t.clock.now() + 10 * 60_000 });
    t.clock.advance(11 * 60_000);
    const refused = await initialize(token);
    expect(refused.statusCode).toBe(410);
    expect(json(refused)).toMatchObject(GONE);
    expect(await madeFor(orderId)).toEqual({ checkouts: [], ledger: [] });
  });

  it("looks the link up in the token's brand only: another brand's token naming a disabled link is not refused by it", async () => {
    const { link } = await openedLink();
    expect((await call(t, "POST", `/api/admin/payment-links/${link.id}/disable`, { session: shop.session })).statusCode).toBe(200);
    const foreign = await signToken(t, orderClaims({ brandId: other.brandId, metadata: { paymentLinkId: link.id } }));
    expect((await initialize(foreign)).statusCode).toBe(200);
  });
});
