// Social sign-in (SPEC rule 4, CONTRACT §23, §31) against a real OAuth 2.0 server started here
// (oauth2-mock-server): the three outcomes, the verified-email rule for linking, 2FA users
// ending pending, a forged or missing state, and an unconfigured provider.
import { eq } from "drizzle-orm";
import { OAuth2Server } from "oauth2-mock-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { socialAccounts, users } from "../db/schema/index.js";
import { auditActions, call, cookieOf, registerUser, registerWithTwoFactor, sessionOf, uniqueEmail } from "../../test/support/identity.js";

let idp: OAuth2Server;
let t: TestApp;
let profile: Record<string, unknown> = {};
const tokenRequests: URLSearchParams[] = [];

beforeAll(async () => {
  idp = new OAuth2Server();
  await idp.issuer.keys.generate("RS256");
  await idp.start(0, "127.0.0.1");
  idp.service.on("beforeUserinfo", (response: { body: unknown }) => {
    response.body = profile;
  });
  idp.service.on("beforeResponse", (_response: unknown, req: { body: Record<string, string> }) => {
    tokenRequests.push(new URLSearchParams(req.body));
  });
  const base = idp.issuer.url!.replace(/\/$/, "");
  t = await buildTestApp({
    env: {
      SOCIAL_A_CLIENT_ID: "client-a",
      SOCIAL_A_CLIENT_SECRET: "secret-a",
      SOCIAL_A_AUTHORIZATION_URL: `${base}/authorize`,
      SOCIAL_A_TOKEN_URL: `${base}/token`,
      SOCIAL_A_USERINFO_URL: `${base}/userinfo`,
    },
  });
});
afterAll(async () => {
  await t.close();
  await idp.stop();
});

/** The browser's trip: our redirect, the provider's consent (auto-approved), back to our callback. */
async function signIn(provider = "social_a") {
  const start = await call(t, "GET", `/api/auth/${provider}`);
  expect(start.statusCode).toBe(302);
  const stateCookie = cookieOf(start, "social_oauth")!;
  expect(stateCookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/api/auth" });
  const authorize = new URL(start.headers.location as string);
  expect(authorize.searchParams.get("redirect_uri")).toBe(`http://checkout.test/api/auth/${provider}/callback`);
  expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
  const consent = await fetch(authorize, { redirect: "manual" });
  const back = new URL(consent.headers.get("location")!);
  const callback = await t.app.inject({ method: "GET", url: `${back.pathname}${back.search}`, cookies: { social_oauth: stateCookie.value } });
  return { callback, back, stateCookie: stateCookie.value };
}

describe("social sign-in", () => {
  it("creates a new user with an organization and a brand, then logs the returning user in", async () => {
    const email = uniqueEmail("social");
    profile = { sub: `sub-${email}`, email, name: "Social Sam" };
    const { callback } = await signIn();
    expect(callback.statusCode).toBe(302);
    expect(callback.headers.location).toBe("/admin");
    expect(cookieOf(callback, "social_oauth")?.value).toBe("");
    const me = json(await call(t, "GET", "/api/admin/auth", { session: sessionOf(callback) }));
    expect(me.session).toMatchObject({ email, name: "Social Sam", role: "owner" });
    expect(me.brands).toHaveLength(1);
    // PKCE: the token request carried the verifier.
    expect(tokenRequests.at(-1)?.get("code_verifier")).toBeTruthy();

    const returning = await signIn();
    expect(returning.callback.headers.location).toBe("/admin");
    expect(json(await call(t, "GET", "/api/admin/auth", { session: sessionOf(returning.callback) })).session.userId).toBe(me.session.userId);
    const actions = (await auditActions(t, me.session.userId)).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["user.register", "social_account.link", "user.login"]));
  });

  it("accepts userinfo with `id` instead of `sub`", async () => {
    const email = uniqueEmail("gh");
    profile = { id: 4242, email, name: "Numeric Id" };
    const { callback } = await signIn();
    expect(callback.headers.location).toBe("/admin");
    expect(await t.deps.database.db.select().from(socialAccounts).where(eq(socialAccounts.subject, "4242"))).toHaveLength(1);
  });

  it("links an existing user only when the provider asserts email_verified: true", async () => {
    const user = await registerUser(t);
    profile = { sub: `sub-unverified-${user.email}`, email: user.email, name: "X" };
    expect((await signIn()).callback.headers.location).toBe("/login?error=account_exists");
    profile = { sub: `sub-unverified-${user.email}`, email: user.email, email_verified: "true", name: "X" };
    expect((await signIn()).callback.headers.location).toBe("/login?error=account_exists");

    profile = { sub: `sub-verified-${user.email}`, email: user.email, email_verified: true, name: "X" };
    const { callback } = await signIn();
    expect(callback.headers.location).toBe("/admin");
    expect(json(await call(t, "GET", "/api/admin/auth", { session: sessionOf(callback) })).session.userId).toBe(user.userId);
    expect(await t.deps.database.db.select().from(socialAccounts).where(eq(socialAccounts.userId, user.userId))).toHaveLength(1);
    expect((await auditActions(t, user.userId)).map((a) => a.action)).toContain("social_account.link");
  });

  it("leaves a 2FA user pending", async () => {
    const user = await registerWithTwoFactor(t);
    profile = { sub: `sub-2fa-${user.email}`, email: user.email, email_verified: true };
    const { callback } = await signIn();
    expect(callback.headers.location).toBe(`/login?step=2fa&userId=${user.userId}`);
    expect(cookieOf(callback, "admin_session")).toBeUndefined();
    expect(cookieOf(callback, "admin_pending_login")?.value).toBeTruthy();
  });

  it("refuses a forged or missing state with /login?error=invalid_state", async () => {
    const email = uniqueEmail("forged");
    profile = { sub: `sub-${email}`, email };
    const start = await call(t, "GET", "/api/auth/social_a");
    const stateCookie = cookieOf(start, "social_oauth")!.value;
    const consent = await fetch(start.headers.location as string, { redirect: "manual" });
    const back = new URL(consent.headers.get("location")!);
    const code = back.searchParams.get("code")!;
    const forged = await t.app.inject({ method: "GET", url: `/api/auth/social_a/callback?code=${code}&state=attacker-state`, cookies: { social_oauth: stateCookie } });
    expect(forged.headers.location).toBe("/login?error=invalid_state");
    const noCookie = await t.app.inject({ method: "GET", url: `${back.pathname}${back.search}` });
    expect(noCookie.headers.location).toBe("/login?error=invalid_state");
    const tampered = await t.app.inject({ method: "GET", url: `${back.pathname}${back.search}`, cookies: { social_oauth: `${stateCookie.slice(0, -4)}AAAA` } });
    expect(tampered.headers.location).toBe("/login?error=invalid_state");
    const noState = await t.app.inject({ method: "GET", url: `/api/auth/social_a/callback?code=${code}`, cookies: { social_oauth: stateCookie } });
    expect(noState.headers.location).toBe("/login?error=invalid_state");
    // None of the refused callbacks created an account.
    expect(await t.deps.database.db.select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });

  it("redirects an unconfigured provider to /login?error=social_not_configured", async () => {
    for (const url of ["/api/auth/social_b", "/api/auth/social_b/callback?code=x&state=y"]) {
      const res = await call(t, "GET", url);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe("/login?error=social_not_configured");
    }
  });
});
