// Per-brand signing keys (issue 15, CONTRACT §34): a token whose header names `kid` verifies with
// that brand key only and only for its brand; tokens without `kid` keep using the master secret for
// any brand; secrets are sealed and shown once; a retired key stops working at once.
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brandSigningKeys, checkouts } from "../db/schema/index.js";
import { buildTestApp, json, TEST_TOKEN_SECRET, type TestApp } from "../../test/support/app.js";
import { addUser, registerOwner, type Registered } from "../../test/support/admin.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";
import { call } from "../../test/support/identity.js";

let t: TestApp;
let brandA: Registered;
let brandB: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  brandA = await registerOwner(t, "Brand A");
  brandB = await registerOwner(t, "Brand B");
});
afterAll(async () => {
  await t.close();
});

async function createKey(session: string): Promise<{ kid: string; secret: string }> {
  const res = await call(t, "POST", "/api/admin/signing-keys", { session });
  expect(res.statusCode, res.body).toBe(200);
  const body = json(res);
  return { kid: body.signingKey.kid, secret: body.secret };
}

async function signWithKid(claims: Record<string, unknown>, kid: string, secret: string): Promise<string> {
  const now = Math.floor(t.clock.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 3600, ...claims }).setProtectedHeader({ alg: "HS256", typ: "JWT", kid }).sign(new TextEncoder().encode(secret));
}

const initialize = (token: string) => post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
const brandOfCheckout = async (orderId: string) => (await t.deps.database.db.select().from(checkouts).where(eq(checkouts.orderId, orderId)))[0]?.brandId;
const INVALID = { error: "Invalid token", code: "INVALID_TOKEN" };

describe("brand signing keys", () => {
  it("creates a key shown once, sealed at rest, listed without its secret", async () => {
    const res = await call(t, "POST", "/api/admin/signing-keys", { session: brandA.session });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = json(res);
    expect(body).toEqual({ success: true, signingKey: { kid: expect.stringMatching(/^bsk_/), mode: "test", livemode: false, createdAt: t.clock.now() }, secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(Buffer.from(body.secret, "base64url")).toHaveLength(32);
    const [row] = await t.deps.database.db.select().from(brandSigningKeys).where(eq(brandSigningKeys.kid, body.signingKey.kid));
    expect(row!.sealedSecret).toMatch(/^v2:/);
    expect(JSON.stringify(row)).not.toContain(body.secret);
    const list = await call(t, "GET", "/api/admin/signing-keys", { session: brandA.session });
    expect(json(list).signingKeys).toContainEqual({ kid: body.signingKey.kid, mode: "test", livemode: false, createdAt: t.clock.now(), lastUsedAt: null });
    expect(list.body).not.toContain(body.secret);
    expect(JSON.stringify(json(await call(t, "GET", "/api/admin/audit-logs", { session: brandA.session })))).not.toContain(body.secret);
  });

  it("lets members list but only admins and owners create and retire", async () => {
    const member = await addUser(t, brandA.session, "member", [brandA.brandId]);
    expect((await call(t, "GET", "/api/admin/signing-keys", { session: member.session })).statusCode).toBe(200);
    expect((await call(t, "POST", "/api/admin/signing-keys", { session: member.session })).statusCode).toBe(403);
    const { kid } = await createKey(brandA.session);
    expect((await call(t, "DELETE", `/api/admin/signing-keys/${kid}`, { session: member.session })).statusCode).toBe(403);
    expect((await call(t, "DELETE", `/api/admin/signing-keys/${kid}`, { session: brandB.session })).statusCode).toBe(404);
  });

  it("verifies a kid token for its brand only: no brandId means the key's brand, another brandId is 401", async () => {
    const { kid, secret } = await createKey(brandA.session);
    const own = orderClaims();
    const res = await initialize(await signWithKid(own, kid, secret));
    expect(res.statusCode, res.body).toBe(200);
    expect(await brandOfCheckout(own.orderId as string)).toBe(brandA.brandId);
    const listed = json(await call(t, "GET", "/api/admin/signing-keys", { session: brandA.session })).signingKeys.find((k: { kid: string }) => k.kid === kid);
    expect(listed.lastUsedAt).toBe(t.clock.now());

    const named = orderClaims({ brandId: brandA.brandId });
    expect((await initialize(await signWithKid(named, kid, secret))).statusCode).toBe(200);

    const claimsB = orderClaims({ brandId: brandB.brandId });
    const forged = await initialize(await signWithKid(claimsB, kid, secret));
    expect(forged.statusCode).toBe(401);
    expect(json(forged)).toMatchObject(INVALID);
    expect(await brandOfCheckout(claimsB.orderId as string)).toBeUndefined();
  });

  it("refuses a kid token signed with the master secret, an unknown kid, and a retired key", async () => {
    const { kid, secret } = await createKey(brandA.session);
    expect(json(await initialize(await signWithKid(orderClaims(), kid, TEST_TOKEN_SECRET)))).toMatchObject(INVALID);
    expect(json(await initialize(await signWithKid(orderClaims(), "bsk_unknown", secret)))).toMatchObject(INVALID);
    const other = await createKey(brandB.session);
    expect(json(await initialize(await signWithKid(orderClaims(), other.kid, secret)))).toMatchObject(INVALID);

    expect((await call(t, "DELETE", `/api/admin/signing-keys/${kid}`, { session: brandA.session })).statusCode).toBe(200);
    expect(json(await initialize(await signWithKid(orderClaims(), kid, secret)))).toMatchObject(INVALID);
    expect(json(await call(t, "GET", "/api/admin/signing-keys", { session: brandA.session })).signingKeys.map((k: { kid: string }) => k.kid)).not.toContain(kid);
  });

  it("accepts a token without kid signed with the master secret for any brand", async () => {
    for (const brand of [brandA, brandB]) {
      const claims = orderClaims({ brandId: brand.brandId });
      expect((await initialize(await signToken(t, claims))).statusCode).toBe(200);
      expect(await brandOfCheckout(claims.orderId as string)).toBe(brand.brandId);
    }
  });
});
