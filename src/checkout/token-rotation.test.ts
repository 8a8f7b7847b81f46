// CHECKOUT_TOKEN_SECRET rotation (docs/operations.md): tokens signed with a secret in
// CHECKOUT_TOKEN_SECRET_PREVIOUS still initialize, new tokens use the current secret, and a secret
// taken out of the list is refused like any unknown one.
import { jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, TEST_TOKEN_SECRET, type TestApp } from "../../test/support/app.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";

const NEW_SECRET = "new-checkout-token-secret-after-rotation-0123";
const OLDER_SECRET = "older-checkout-token-secret-two-rotations-ago";

let rotating: TestApp;
let rotated: TestApp;
beforeAll(async () => {
  rotating = await buildTestApp({ env: { CHECKOUT_TOKEN_SECRET: NEW_SECRET, CHECKOUT_TOKEN_SECRET_PREVIOUS: `${OLDER_SECRET}, ${TEST_TOKEN_SECRET}` } });
  rotated = await buildTestApp({ env: { CHECKOUT_TOKEN_SECRET: NEW_SECRET } });
});
afterAll(async () => {
  await rotating.close();
  await rotated.close();
});

const initialize = (t: TestApp, token: string) => post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
const withSecret = (t: TestApp, secret: string) => signToken(t, orderClaims(), { secret });

async function expectInvalid(t: TestApp, token: string) {
  const res = await initialize(t, token);
  expect(res.statusCode).toBe(401);
  expect(json(res)).toMatchObject({ error: "Invalid token", code: "INVALID_TOKEN" });
}

describe("during a rotation (CHECKOUT_TOKEN_SECRET_PREVIOUS set)", () => {
  it.each([
    ["the current secret", NEW_SECRET],
    ["the first previous secret", OLDER_SECRET],
    ["the second previous secret", TEST_TOKEN_SECRET],
  ])("initializes a token signed with %s", async (_name, secret) => {
    const res = await initialize(rotating, await withSecret(rotating, secret));
    expect(res.statusCode, res.body).toBe(200);
  });

  it("refuses a token signed with a secret in neither", async () => {
    await expectInvalid(rotating, await withSecret(rotating, "unknown-checkout-token-secret-0123456789abcdef"));
  });

  it("signs generated tokens with the current secret only", async () => {
    const { token } = json(await post(rotating, "/api/token/generate", {}));
    const currentDate = new Date(rotating.clock.now());
    await expect(jwtVerify(token, new TextEncoder().encode(NEW_SECRET), { currentDate })).resolves.toBeDefined();
    await expect(jwtVerify(token, new TextEncoder().encode(TEST_TOKEN_SECRET), { currentDate })).rejects.toThrow();
  });
});

describe("after the rotation (the previous secret removed)", () => {
  it("refuses a token signed with the old secret and still initializes one signed with the new", async () => {
    const old = await withSecret(rotating, TEST_TOKEN_SECRET);
    expect((await initialize(rotating, old)).statusCode).toBe(200);
    await expectInvalid(rotated, old);
    expect((await initialize(rotated, await withSecret(rotated, NEW_SECRET))).statusCode).toBe(200);
  });
});
