// `/api/v1` for merchant servers (issue 15): each route with a valid key, a revoked key, another
// brand's key, a missing scope and a session cookie; checkouts belong to the key's brand; one
// Idempotency-Key under 20 concurrent repeats makes one checkout.
import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkouts, idempotencyKeys, merchantCheckouts, orders } from "../db/schema/index.js";
import { testEngine } from "../../test/support/database.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { registerOwner, type Registered } from "../../test/support/admin.js";
import { post } from "../../test/support/checkout.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { call } from "../../test/support/identity.js";
import { AMOUNT, PAY_BY_PROVIDER } from "../../test/support/provider-payments.js";
import { abandonReservation, expireReservation } from "../../test/support/idempotency.js";
import { createApiKey, withKey } from "../../test/support/merchant.js";

let t: TestApp;
let shop: Registered;
let rival: Registered;
let key: string;
let rivalKey: string;
let readOnly: string;
let revoked: string;
beforeAll(async () => {
  t = await buildTestApp();
  shop = await registerOwner(t, "Shop");
  rival = await registerOwner(t, "Rival");
  key = (await createApiKey(t, shop.session)).secret;
  rivalKey = (await createApiKey(t, rival.session)).secret;
  readOnly = (await createApiKey(t, shop.session, { scopes: ["orders:read"] })).secret;
  const gone = await createApiKey(t, shop.session);
  await call(t, "DELETE", `/api/admin/api-keys/${gone.id}`, { session: shop.session });
  revoked = gone.secret;
});
afterAll(async () => {
  await t.close();
});

let seq = 0;
const checkoutBody = (overrides: Record<string, unknown> = {}) => ({ orderId: `v1-${++seq}-${t.clock.now()}`, amount: AMOUNT, currency: "USD", productName: "Plan", ...overrides });
const createCheckout = (secret: string | null, body: unknown = checkoutBody(), headers: Record<string, string> = {}) => withKey(t, "POST", "/api/v1/checkouts", secret, body, headers);
const INVALID = { error: "Invalid API key", code: "UNAUTHORIZED" };

describe("POST /api/v1/checkouts", () => {
  it("creates a checkout of the key's brand whose url opens the hosted checkout", async () => {
    const body = checkoutBody({ brandId: rival.brandId, expiresInSeconds: 600 });
    const res = await createCheckout(key, body);
    expect(res.statusCode, res.body).toBe(201);
    const created = json(res);
    expect(created).toEqual({
      id: expect.stringMatching(/^chk_/),
      orderId: body.orderId,
      url: `http://checkout.test/checkout/${created.token}`,
      shortUrl: expect.stringMatching(/^http:\/\/checkout\.test\/c\/[A-Za-z0-9_-]+$/),
      token: expect.any(String),
      expiresAt: t.clock.now() + 600_000,
      livemode: false,
    });
    // The brand is the key's, whatever the body says; so is the mode (a test key: issue 33).
    expect(decodeJwt(created.token)).toMatchObject({ brandId: shop.brandId, orderId: body.orderId, amount: AMOUNT, livemode: false });
    const short = await t.app.inject({ method: "GET", url: new URL(created.shortUrl).pathname });
    expect(short.statusCode).toBe(302);
    expect(short.headers.location).toBe(`/checkout/${created.token}`);

    const init = await post(t, "/api/checkout/initialize", { token: created.token, provider: "vault_gateway_b" });
    expect(init.statusCode, init.body).toBe(200);
    const [row] = await t.deps.database.db.select().from(checkouts).where(eq(checkouts.orderId, body.orderId));
    expect(row!.brandId).toBe(shop.brandId);
    // One id per checkout (issue 33): the checkout the buyer opened is the one the API answered.
    expect(row!.id).toBe(created.id);
  });

  it("refuses a revoked key, no key, a session cookie, a missing scope; validates the body", async () => {
    expect(json(await createCheckout(revoked))).toMatchObject(INVALID);
    const none = await createCheckout(null);
    expect(none.statusCode).toBe(401);
    expect(json(none)).toMatchObject({ error: "API key required", code: "UNAUTHORIZED" });
    const cookie = await call(t, "POST", "/api/v1/checkouts", { session: shop.session, body: checkoutBody() });
    expect(json(cookie)).toMatchObject({ error: "API key required", code: "UNAUTHORIZED" });
    const scope = await createCheckout(readOnly);
    expect(scope.statusCode).toBe(403);
    expect(json(scope)).toMatchObject({ error: "API key lacks scope checkouts:write", code: "FORBIDDEN" });
    for (const bad of [checkoutBody({ amount: 0 }), checkoutBody({ expiresInSeconds: 59 }), checkoutBody({ expiresInSeconds: 86_401 }), { amount: 100 }]) {
      const res = await createCheckout(key, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(json(res).code).toBe("VALIDATION_ERROR");
    }
    expect(await t.deps.database.db.select().from(merchantCheckouts).where(eq(merchantCheckouts.apiKeyId, "none"))).toHaveLength(0);
  });

  // PostgreSQL only: PGlite has one connection and runs transactions one at a time, so this race cannot fail there.
  it.runIf(testEngine === "postgres")("makes one checkout from 20 concurrent repeats with one Idempotency-Key", async () => {
    const body = checkoutBody();
    const answers = await Promise.all(Array.from({ length: 20 }, () => createCheckout(key, body, { "idempotency-key": `idem-${body.orderId}` })));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.every((s) => s === 201 || s === 409), statuses.join(",")).toBe(true);
    expect(await t.deps.database.db.select().from(merchantCheckouts).where(eq(merchantCheckouts.orderId, body.orderId))).toHaveLength(1);
    const ids = new Set(answers.filter((a) => a.statusCode === 201).map((a) => json(a).id));
    expect(ids.size).toBe(1);
    // The replay after the first finished is the same checkout.
    const replay = await createCheckout(key, body, { "idempotency-key": `idem-${body.orderId}` });
    expect(replay.statusCode).toBe(201);
    expect(json(replay).id).toBe([...ids][0]);
    // Another merchant's key with the same Idempotency-Key is another caller, not a replay.
    const rivalAnswer = await createCheckout(rivalKey, body, { "idempotency-key": `idem-${body.orderId}` });
    expect(rivalAnswer.statusCode).toBe(201);
    expect(json(rivalAnswer).id).not.toBe([...ids][0]);
  });

  it("a retry after the dead request's reservation was taken over (or expired) answers the same checkout, never a second one; other parameters are 422", async () => {
    const body = checkoutBody();
    const headers = { "idempotency-key": `takeover-${body.orderId}` };
    const first = await createCheckout(key, body, headers);
    expect(first.statusCode, first.body).toBe(201);
    await abandonReservation(t, headers["idempotency-key"]);
    const retry = await createCheckout(key, body, headers);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(json(retry)).toEqual(json(first)); // the same id, url, short url and token
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    await expireReservation(t, headers["idempotency-key"]);
    expect(json(await createCheckout(key, body, headers))).toEqual(json(first));
    await abandonReservation(t, headers["idempotency-key"]);
    const other = await createCheckout(key, { ...body, amount: AMOUNT + 1 }, headers);
    expect(other.statusCode).toBe(422);
    expect(json(other).code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(await t.deps.database.db.select().from(merchantCheckouts).where(eq(merchantCheckouts.orderId, body.orderId))).toHaveLength(1);
  });

  it("brand B's key sending brand A's Idempotency-Key and body gets its own checkout, never A's", async () => {
    const body = checkoutBody();
    const headers = { "idempotency-key": `shared-${body.orderId}` };
    const theirs = json(await createCheckout(key, body, headers));
    const mine = await createCheckout(rivalKey, body, headers);
    expect(mine.statusCode, mine.body).toBe(201);
    expect(json(mine).id).not.toBe(theirs.id);
    expect(json(mine).token).not.toBe(theirs.token);
    expect(decodeJwt(json(mine).token)).toMatchObject({ brandId: rival.brandId });
    // Also past both reservations, when only the checkouts' own bindings are left.
    await t.deps.database.db.delete(idempotencyKeys).where(eq(idempotencyKeys.key, headers["idempotency-key"]));
    const again = json(await createCheckout(rivalKey, body, headers));
    expect(again.id).toBe(json(mine).id);
    const rows = await t.deps.database.db.select().from(merchantCheckouts).where(eq(merchantCheckouts.orderId, body.orderId));
    expect(rows.map((r) => [r.checkoutId, r.brandId]).sort()).toEqual([[theirs.id, shop.brandId], [json(mine).id, rival.brandId]].sort());
  });

  it("refuses a checkout for an order the brand already completed", async () => {
    const done = await completeCheckoutViaApi(t, { claims: { brandId: shop.brandId } });
    const res = await createCheckout(key, checkoutBody({ orderId: done.orderId }));
    expect(res.statusCode).toBe(409);
    expect(json(res).code).toBe("CHECKOUT_COMPLETED");
  });
});

describe("GET /api/v1/checkouts/<id>", () => {
  it("follows the checkout from open to completed, for the key's brand only", async () => {
    const body = checkoutBody();
    const created = json(await createCheckout(key, body));
    const get = (secret: string | null) => withKey(t, "GET", `/api/v1/checkouts/${created.id}`, secret);
    const open = await get(readOnly);
    expect(open.statusCode, open.body).toBe(200);
    expect(json(open)).toEqual({ id: created.id, orderId: body.orderId, status: "open", amount: AMOUNT, currency: "USD", provider: null, createdAt: t.clock.now(), completedAt: null, expiresAt: created.expiresAt, livemode: false });

    expect((await post(t, "/api/checkout/initialize", { token: created.token, provider: "vault_gateway_b" })).statusCode).toBe(200);
    expect(json(await get(key))).toMatchObject({ status: "initialized", provider: "vault_gateway_b" });
    const paid = await PAY_BY_PROVIDER.vault_gateway_b(t, body.orderId);
    const done = await post(t, "/api/checkout/complete", { orderId: body.orderId, transactionId: paid.transactionId, provider: "vault_gateway_b", customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "USD" });
    expect(done.statusCode, done.body).toBe(200);
    expect(json(await get(key))).toMatchObject({ status: "completed", completedAt: t.clock.now() });

    expect((await get(rivalKey)).statusCode).toBe(404);
    expect(json(await get(revoked))).toMatchObject(INVALID);
    expect((await call(t, "GET", `/api/v1/checkouts/${created.id}`, { session: shop.session })).statusCode).toBe(401);
  });

  it("says expired once the link expired unpaid; a key without checkouts:write or orders:read is 403", async () => {
    const created = json(await createCheckout(key, checkoutBody({ expiresInSeconds: 60 })));
    t.clock.advance(61_000);
    expect(json(await withKey(t, "GET", `/api/v1/checkouts/${created.id}`, key)).status).toBe("expired");
    const upsellOnly = (await createApiKey(t, shop.session, { scopes: ["upsell:write"] })).secret;
    const res = await withKey(t, "GET", `/api/v1/checkouts/${created.id}`, upsellOnly);
    expect(res.statusCode).toBe(403);
    expect(json(res)).toMatchObject({ error: "API key lacks scope checkouts:write", code: "FORBIDDEN" });
  });
});

describe("POST /api/v1/upsell/sessions and /api/v1/payment-tokens", () => {
  it("work with the brand's key and refuse another brand's, a revoked key, a missing scope and a cookie", async () => {
    const order = await completeCheckoutViaApi(t, { claims: { brandId: shop.brandId } });
    const tokenBody = { provider: order.provider, transactionId: await transactionOf(order.orderId) };
    const token = await withKey(t, "POST", "/api/v1/payment-tokens", key, tokenBody);
    expect(token.statusCode, token.body).toBe(200);
    expect(json(token)).toEqual({ success: true, paymentMethodToken: order.paymentMethodToken, provider: order.provider });

    const sessionBody = {
      orderId: `${order.orderId}-up`,
      originalOrderId: order.orderId,
      customerEmail: "ada@example.com",
      provider: order.provider,
      paymentMethodToken: order.paymentMethodToken,
      offers: [{ id: "o1", name: "Extra", price: 1500 }],
    };
    const session = await withKey(t, "POST", "/api/v1/upsell/sessions", key, sessionBody);
    expect(session.statusCode, session.body).toBe(200);
    expect(json(session)).toMatchObject({ success: true, sessionId: expect.any(String), totalOffers: 1 });

    // Another brand's order reads exactly like an unknown one: not found, or a token not issued for it.
    const otherBrand = { "/api/v1/payment-tokens": 404, "/api/v1/upsell/sessions": 400 };
    for (const [url, body] of [["/api/v1/payment-tokens", tokenBody], ["/api/v1/upsell/sessions", { ...sessionBody, orderId: `${order.orderId}-up2` }]] as const) {
      const other = await withKey(t, "POST", url, rivalKey, body);
      expect(other.statusCode, `${url} ${other.body}`).toBe(otherBrand[url]);
      expect(json(await withKey(t, "POST", url, revoked, body))).toMatchObject(INVALID);
      const scope = await withKey(t, "POST", url, readOnly, body);
      expect(scope.statusCode).toBe(403);
      expect(json(scope)).toMatchObject({ error: "API key lacks scope upsell:write", code: "FORBIDDEN" });
      expect((await call(t, "POST", url, { session: shop.session, body })).statusCode).toBe(401);
    }
  });
});

async function transactionOf(orderId: string): Promise<string> {
  const [row] = await t.deps.database.db.select({ transactionId: orders.transactionId }).from(orders).where(eq(orders.orderId, orderId));
  return row!.transactionId;
}
