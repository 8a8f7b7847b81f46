// GET /api/auth/social-providers: the login page shows a social button only for a configured provider.
import { afterAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";

const apps: TestApp[] = [];
afterAll(() => Promise.all(apps.map((t) => t.close())));

async function providersWith(env: Record<string, string>) {
  const t = await buildTestApp({ env });
  apps.push(t);
  const res = await t.app.inject({ method: "GET", url: "/api/auth/social-providers" });
  expect(res.statusCode).toBe(200);
  return json(res);
}

describe("social sign-in providers", () => {
  it("none configured by default", async () => {
    expect(await providersWith({})).toEqual({ social_a: false, social_b: false });
  });

  it("names the configured one", async () => {
    const idp = "http://127.0.0.1:9/oauth";
    const env = { SOCIAL_B_CLIENT_ID: "b", SOCIAL_B_CLIENT_SECRET: "s", SOCIAL_B_AUTHORIZATION_URL: `${idp}/authorize`, SOCIAL_B_TOKEN_URL: `${idp}/token`, SOCIAL_B_USERINFO_URL: `${idp}/userinfo` };
    expect(await providersWith(env)).toEqual({ social_a: false, social_b: true });
  });
});
