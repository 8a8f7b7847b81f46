// Issue 16 holes 2 and 4 (CONTRACT §36): a token whose successUrl or cancelUrl is not an absolute
// http(s) URL without userinfo, whose iat is more than 60 s ahead, or which lives more than 24 hours
// is refused at initialize with 401 Invalid token (the reason only in the log).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const initialize = (token: string) => post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" });
const now = () => Math.floor(t.clock.now() / 1000);

async function expectInvalid(token: string, logged: RegExp) {
  const before = t.logs.length;
  const res = await initialize(token);
  expect(res.statusCode, res.body).toBe(401);
  expect(json(res)).toMatchObject({ error: "Invalid token", code: "INVALID_TOKEN" });
  expect(t.logs.slice(before).join("")).toMatch(logged);
}

describe("successUrl and cancelUrl", () => {
  const refused = [
    "javascript:alert(document.domain)//",
    "JavaScript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "//evil.example/path",
    " https://shop.example/thanks",
    "https://shop.example/thanks\n",
    "https://user:pass@evil.example/",
    "https://shop.example@evil.example/",
    "https://evil.example\\@shop.example/",
    "/relative/path",
    "ftp://shop.example/",
    "vbscript:msgbox(1)",
    "",
  ];
  for (const field of ["successUrl", "cancelUrl"]) {
    it(`refuses every ${field} that is not an absolute http(s) URL without userinfo`, async () => {
      for (const url of refused) await expectInvalid(await signToken(t, orderClaims({ [field]: url })), new RegExp(field));
    });
  }

  it("accepts absolute http and https URLs with paths, queries and ports (control)", async () => {
    const res = await initialize(await signToken(t, orderClaims({ successUrl: "https://shop.example:8443/thanks?ref=a#top", cancelUrl: "http://shop.example/cart" })));
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe("token lifetimes", () => {
  it("refuses an iat more than 60 s in the future (10 minutes, 10 years) and accepts 60 s of clock skew", async () => {
    await expectInvalid(await signToken(t, orderClaims({ iat: now() + 600, exp: now() + 3600 })), /iat/);
    await expectInvalid(await signToken(t, orderClaims({ iat: now() + 10 * 365 * 86400, exp: now() + 10 * 365 * 86400 + 3600 })), /iat/);
    expect((await initialize(await signToken(t, orderClaims({ iat: now() + 60, exp: now() + 3600 })))).statusCode).toBe(200);
  });

  it("refuses a token living more than 24 hours (exp - iat), and accepts exactly 24 hours", async () => {
    await expectInvalid(await signToken(t, orderClaims({ iat: now(), exp: now() + 10 * 365 * 86400 })), /lifetime/);
    await expectInvalid(await signToken(t, orderClaims({ iat: now() - 3600, exp: now() + 86400 - 3599 })), /lifetime/);
    expect((await initialize(await signToken(t, orderClaims({ iat: now(), exp: now() + 86400 })))).statusCode).toBe(200);
  });
});
