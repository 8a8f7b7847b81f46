// SPEC "Authentication > Checkout token": initialize refuses every token that is not a valid HS256
// checkout token (wrong algorithm, secret, signature, expiry, claims) with 401 INVALID_TOKEN.
import { createHmac } from "node:crypto";
import { UnsecuredJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, TEST_TOKEN_SECRET, type TestApp } from "../../test/support/app.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A JWT signed by hand, for algorithms and payloads jose would not produce. */
function handSigned(header: object, payload: object, alg: "sha256" | "sha512", secret = TEST_TOKEN_SECRET): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac(alg, secret).update(input).digest("base64url")}`;
}

const initialize = (token: string) => post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });

async function expectInvalid(token: string) {
  const res = await initialize(token);
  expect(res.statusCode).toBe(401);
  expect(json(res)).toMatchObject({ error: "Invalid token", code: "INVALID_TOKEN" });
}

describe("checkout token verification", () => {
  it("accepts a valid HS256 token (control for the refusals below)", async () => {
    const res = await initialize(await signToken(t));
    expect(res.statusCode).toBe(200);
  });

  it("accepts a hand-signed HS256 token (control for the hand-signed refusals)", async () => {
    const now = Math.floor(t.clock.now() / 1000);
    const res = await initialize(handSigned({ alg: "HS256", typ: "JWT" }, { ...orderClaims(), iat: now, exp: now + 600 }, "sha256"));
    expect(res.statusCode).toBe(200);
  });

  it("refuses alg none", async () => {
    const now = Math.floor(t.clock.now() / 1000);
    await expectInvalid(new UnsecuredJWT({ ...orderClaims(), iat: now, exp: now + 600 }).encode());
  });

  it("refuses HS512 even with the right secret", async () => {
    const now = Math.floor(t.clock.now() / 1000);
    await expectInvalid(handSigned({ alg: "HS512", typ: "JWT" }, { ...orderClaims(), iat: now, exp: now + 600 }, "sha512"));
  });

  it("refuses a token signed with another secret", async () => {
    await expectInvalid(await signToken(t, orderClaims(), { secret: "another-secret-that-is-long-enough-0123456789" }));
  });

  it("refuses a tampered payload", async () => {
    const [header, , signature] = (await signToken(t, orderClaims({ amount: 5000 }))).split(".");
    const now = Math.floor(t.clock.now() / 1000);
    await expectInvalid(`${header}.${b64({ ...orderClaims({ amount: 1 }), iat: now, exp: now + 3600 })}.${signature}`);
  });

  it("refuses an expired token, judged by the app's clock", async () => {
    const token = await signToken(t, orderClaims(), { expiresInSeconds: 60 });
    expect((await initialize(token)).statusCode).toBe(200);
    t.clock.advance(61_000);
    await expectInvalid(token);
  });

  it.each(["exp", "iat"] as const)("refuses a token without %s", async (claim) => {
    await expectInvalid(await signToken(t, orderClaims(), { omit: [claim] }));
  });

  it.each([
    ["orderId missing", { orderId: undefined }],
    ["amount as text", { amount: "5000" }],
    ["amount fractional", { amount: 10.5 }],
    ["currency not a code", { currency: "dollars" }],
    ["productName missing", { productName: undefined }],
    ["customer not an object", { customer: "jane" }],
    ["shippingAddress without address1", { shippingAddress: { city: "X", state: "Y", postalCode: "1", country: "US" } }],
    ["unknown provider", { provider: "paypal" }],
    ["metadata with a number", { metadata: { a: 1 } }],
    ["exp as text", { exp: "9999999999" }],
  ])("refuses bad claims: %s", async (_name, change) => {
    const claims = orderClaims(change);
    for (const [key, value] of Object.entries(claims)) if (value === undefined) delete claims[key];
    await expectInvalid(await signToken(t, claims));
  });

  it("refuses an exp of 1e400, which JSON reads as Infinity", async () => {
    const now = Math.floor(t.clock.now() / 1000);
    const header = b64({ alg: "HS256", typ: "JWT" });
    const payload = Buffer.from(JSON.stringify({ ...orderClaims(), iat: now }).replace(/}$/, ',"exp":1e400}')).toString("base64url");
    const signature = createHmac("sha256", TEST_TOKEN_SECRET).update(`${header}.${payload}`).digest("base64url");
    await expectInvalid(`${header}.${payload}.${signature}`);
  });

  it("refuses a crit header, a future nbf, non-numeric exp or iat, and a non-object payload, each correctly signed", async () => {
    const now = Math.floor(t.clock.now() / 1000);
    const claims: Record<string, unknown> = { ...orderClaims(), iat: now, exp: now + 600 };
    // Control: the same hand-signed shape with nothing wrong is accepted.
    expect((await initialize(handSigned({ alg: "HS256", typ: "JWT" }, claims, "sha256"))).statusCode).toBe(200);
    await expectInvalid(handSigned({ alg: "HS256", crit: ["exp"] }, { ...claims, orderId: `${String(claims.orderId)}-crit` }, "sha256"));
    await expectInvalid(handSigned({ alg: "HS256" }, { ...claims, orderId: `${String(claims.orderId)}-nbf`, nbf: now + 60 }, "sha256"));
    await expectInvalid(handSigned({ alg: "HS256" }, { ...claims, orderId: `${String(claims.orderId)}-exp`, exp: String(now + 600) }, "sha256"));
    await expectInvalid(handSigned({ alg: "HS256" }, { ...claims, orderId: `${String(claims.orderId)}-iat`, iat: undefined }, "sha256"));
    await expectInvalid(handSigned({ alg: "HS256" }, [claims], "sha256"));
  });

  it("refuses a signature with characters outside base64url", async () => {
    const token = await signToken(t, orderClaims());
    await expectInvalid(`${token}=`);
    await expectInvalid(token.replace(/\.([^.]*)$/, ".+$1"));
  });

  it("refuses garbage", async () => {
    await expectInvalid("not-a-jwt");
    await expectInvalid("a.b.c");
  });
});
