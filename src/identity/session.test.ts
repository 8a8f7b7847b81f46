// Password login, the session cookie (attributes, rotation, idle and absolute end, logout), CSRF
// refusal, tenant switching and the brute-force limits (CONTRACT §23, §28).
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, errorOf, json, type TestApp } from "../../test/support/app.js";
import { auditLogs, brandAccess, brands, memberships, sessions } from "../db/schema/index.js";
import { sha256 } from "../lib/crypto.js";
import { auditActions, call, cookieOf, PASSWORD, registerUser, sessionOf, uniqueEmail } from "../../test/support/identity.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const login = (email: string, password: string, headers: Record<string, string> = {}) => call(t, "POST", "/api/admin/auth", { body: { email, password }, headers });

describe("POST /api/admin/auth", () => {
  it("logs in with a new session id and an httpOnly, SameSite=Lax, Path=/ cookie (no Secure on http)", async () => {
    const user = await registerUser(t);
    const res = await login(user.email, PASSWORD);
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true, session: { userId: user.userId, email: user.email, name: user.name, role: "owner" } });
    const cookie = cookieOf(res, "admin_session")!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/", maxAge: 12 * 3600 });
    expect(cookie.secure).toBeFalsy();
    expect(cookie.value).not.toBe(user.session);
    // Stored hashed, never raw.
    const [row] = await t.deps.database.db.select().from(sessions).where(eq(sessions.idHash, sha256(cookie.value)));
    expect(row.userId).toBe(user.userId);
    expect(await t.deps.database.db.select().from(sessions).where(eq(sessions.idHash, cookie.value))).toHaveLength(0);
  });

  it("answers the same error for an unknown email and a wrong password, both audited", async () => {
    const user = await registerUser(t);
    const wrong = await login(user.email, "wrong password!!");
    const unknown = await login(uniqueEmail("nobody"), PASSWORD);
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(errorOf(wrong)).toEqual(errorOf(unknown));
    expect(json(wrong)).toMatchObject({ error: "Invalid email or password", code: "INVALID_CREDENTIALS" });
    const failures = (await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.action, "user.login"))).filter((a) => !a.success);
    expect(failures.length).toBeGreaterThanOrEqual(2);
  });

  it("answers Missing required fields without email or password", async () => {
    const res = await call(t, "POST", "/api/admin/auth", { body: { email: "a@b.co" } });
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe("Missing required fields");
  });

  it("sets Secure when PUBLIC_BASE_URL is https", async () => {
    const secure = await buildTestApp({ env: { PUBLIC_BASE_URL: "https://pay.example.com" } });
    try {
      const res = await secure.app.inject({
        method: "POST",
        url: "/api/auth/register",
        headers: { "content-type": "application/json" },
        payload: { name: "S", email: uniqueEmail(), password: PASSWORD, orgName: "S" },
      });
      expect(cookieOf(res, "admin_session")).toMatchObject({ secure: true, httpOnly: true, sameSite: "Lax", path: "/" });
    } finally {
      await secure.close();
    }
  });
});

describe("GET and DELETE /api/admin/auth", () => {
  it("answers 401 { error: Unauthorized, authenticated: false } without a session", async () => {
    for (const session of [undefined, "not-a-session"]) {
      const res = await call(t, "GET", "/api/admin/auth", { session });
      expect(res.statusCode).toBe(401);
      expect(json(res)).toMatchObject({ error: "Unauthorized", authenticated: false });
    }
  });

  it("logout deletes the session row and clears the cookie", async () => {
    const user = await registerUser(t);
    const res = await call(t, "DELETE", "/api/admin/auth", { session: user.session });
    expect(res.statusCode).toBe(200);
    expect(cookieOf(res, "admin_session")?.value).toBe("");
    expect(await t.deps.database.db.select().from(sessions).where(eq(sessions.idHash, sha256(user.session)))).toHaveLength(0);
    expect((await call(t, "GET", "/api/admin/auth", { session: user.session })).statusCode).toBe(401);
    expect((await auditActions(t, user.userId)).map((a) => a.action)).toContain("user.logout");
  });

  it("ends a session after 30 minutes idle", async () => {
    const user = await registerUser(t);
    t.clock.advance(29 * 60_000);
    expect((await call(t, "GET", "/api/admin/auth", { session: user.session })).statusCode).toBe(200);
    t.clock.advance(29 * 60_000);
    expect((await call(t, "GET", "/api/admin/auth", { session: user.session })).statusCode).toBe(200);
    t.clock.advance(31 * 60_000);
    expect((await call(t, "GET", "/api/admin/auth", { session: user.session })).statusCode).toBe(401);
  });

  it("ends a session 12 hours after it began, however active", async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 25; i++) {
      t.clock.advance(29 * 60_000);
      const res = await call(t, "GET", "/api/admin/auth", { session: user.session });
      if (i < 24) expect(res.statusCode, `step ${i}`).toBe(200);
      else expect(res.statusCode).toBe(401);
    }
  });

  it("gives a valid session the authenticated rate limit", async () => {
    const limited = await buildTestApp({ env: { RATE_LIMIT_ANONYMOUS: "5", RATE_LIMIT_AUTHENTICATED: "50" } });
    try {
      const user = await registerUser(limited);
      const res = await call(limited, "GET", "/api/admin/auth", { session: user.session });
      expect(res.headers["x-ratelimit-limit"]).toBe("50");
      expect((await call(limited, "GET", "/api/admin/auth")).headers["x-ratelimit-limit"]).toBe("5");
    } finally {
      await limited.close();
    }
  });
});

describe("CSRF", () => {
  it("refuses unsafe methods carrying the session cookie without a same-origin Origin", async () => {
    const user = await registerUser(t);
    const refusedHeaders: Record<string, string>[] = [{ origin: "https://evil.example" }, { origin: "" }, { "sec-fetch-site": "cross-site", origin: "null" }];
    for (const headers of refusedHeaders) {
      const res = await call(t, "DELETE", "/api/admin/auth", { session: user.session, headers });
      expect(res.statusCode).toBe(403);
      expect(json(res).code).toBe("CSRF_REJECTED");
    }
    const noOrigin = await t.app.inject({ method: "DELETE", url: "/api/admin/auth", cookies: { admin_session: user.session } });
    expect(noOrigin.statusCode).toBe(403);
    // Still logged in: nothing happened.
    expect((await call(t, "GET", "/api/admin/auth", { session: user.session, headers: { origin: "https://evil.example" } })).statusCode).toBe(200);
    const sameSite = await t.app.inject({ method: "DELETE", url: "/api/admin/auth", cookies: { admin_session: user.session }, headers: { "sec-fetch-site": "same-origin" } });
    expect(sameSite.statusCode).toBe(200);
  });
});

describe("switch-org and switch-brand", () => {
  it("switches only to the user's organizations and brands, with a new session id each time", async () => {
    const a = await registerUser(t, { orgName: "Alpha" });
    const b = await registerUser(t, { orgName: "Beta" });
    const db = t.deps.database.db;
    const meA = json(await call(t, "GET", "/api/admin/auth", { session: a.session }));
    const meB = json(await call(t, "GET", "/api/admin/auth", { session: b.session }));
    const alphaOrg = meA.session.organizationId;
    const betaOrg = meB.session.organizationId;

    // a is not in Beta: 403, audited.
    const refused = await call(t, "POST", "/api/admin/auth/switch-org", { session: a.session, body: { organizationId: betaOrg } });
    expect(refused.statusCode).toBe(403);
    expect(await call(t, "POST", "/api/admin/auth/switch-brand", { session: a.session, body: { brandId: meB.session.brandId } }).then((r) => r.statusCode)).toBe(403);

    // Make a an admin of Beta: now the switch works and rotates the session.
    await db.insert(memberships).values({ userId: a.userId, organizationId: betaOrg, role: "admin", createdAt: new Date(t.clock.now()) });
    const switched = await call(t, "POST", "/api/admin/auth/switch-org", { session: a.session, body: { organizationId: betaOrg } });
    expect(switched.statusCode).toBe(200);
    expect(json(switched)).toEqual({ success: true, organizationId: betaOrg, brandId: meB.session.brandId });
    const rotated = sessionOf(switched);
    expect(rotated).not.toBe(a.session);
    expect((await call(t, "GET", "/api/admin/auth", { session: a.session })).statusCode).toBe(401);
    const now = json(await call(t, "GET", "/api/admin/auth", { session: rotated }));
    expect(now.session).toMatchObject({ organizationId: betaOrg, role: "admin" });
    expect(now.organizations.map((o: { id: string }) => o.id).sort()).toEqual([alphaOrg, betaOrg].sort());

    // A second brand in Beta: admins reach it; a brand of Alpha is not in the current organization.
    const [brand] = await db.insert(brands).values({ id: `brand_x_${Date.now()}`, organizationId: betaOrg, name: "Beta Two", slug: `two-${Date.now()}`, createdAt: new Date(t.clock.now()) }).returning();
    const toBrand = await call(t, "POST", "/api/admin/auth/switch-brand", { session: rotated, body: { brandId: brand.id } });
    expect(toBrand.statusCode).toBe(200);
    expect(json(toBrand).brandId).toBe(brand.id);
    const rotatedAgain = sessionOf(toBrand);
    expect(rotatedAgain).not.toBe(rotated);
    expect((await call(t, "POST", "/api/admin/auth/switch-brand", { session: rotatedAgain, body: { brandId: meA.session.brandId } })).statusCode).toBe(403);

    const actions = (await auditActions(t, a.userId)).map((x) => `${x.action}:${x.success}`);
    expect(actions).toEqual(expect.arrayContaining(["organization.switch:false", "organization.switch:true", "brand.switch:true", "brand.switch:false"]));
  });

  it("limits a member to the brands granted to them", async () => {
    const owner = await registerUser(t, { orgName: "Gamma" });
    const member = await registerUser(t, { orgName: "Member Home" });
    const meOwner = json(await call(t, "GET", "/api/admin/auth", { session: owner.session }));
    const db = t.deps.database.db;
    const gamma = meOwner.session.organizationId;
    const [other] = await db.insert(brands).values({ id: `brand_g_${Date.now()}`, organizationId: gamma, name: "G2", slug: `g2-${Date.now()}`, createdAt: new Date(t.clock.now()) }).returning();
    await db.insert(memberships).values({ userId: member.userId, organizationId: gamma, role: "member", createdAt: new Date(t.clock.now()) });
    await db.insert(brandAccess).values({ userId: member.userId, brandId: other.id, role: "member", createdAt: new Date(t.clock.now()) });
    const switched = await call(t, "POST", "/api/admin/auth/switch-org", { session: member.session, body: { organizationId: gamma } });
    expect(json(switched)).toMatchObject({ organizationId: gamma, brandId: other.id });
    const s = sessionOf(switched);
    expect(json(await call(t, "GET", "/api/admin/auth", { session: s })).brands).toEqual([{ id: other.id, name: "G2", slug: other.slug }]);
    expect((await call(t, "POST", "/api/admin/auth/switch-brand", { session: s, body: { brandId: meOwner.session.brandId } })).statusCode).toBe(403);
  });
});

describe("caching of session responses (issue 16 hole 5)", () => {
  it("answers register, login and logout, which set or clear the session cookie, with Cache-Control: no-store", async () => {
    const email = uniqueEmail("cache");
    const registered = await call(t, "POST", "/api/auth/register", { body: { name: "Cache", email, password: PASSWORD, orgName: "Cache shop" } });
    expect(registered.statusCode).toBe(200);
    expect(registered.headers["cache-control"]).toBe("no-store");
    const loggedIn = await login(email, PASSWORD);
    expect(loggedIn.statusCode, loggedIn.body).toBe(200);
    expect(loggedIn.headers["set-cookie"]).toBeDefined();
    expect(loggedIn.headers["cache-control"]).toBe("no-store");
    const loggedOut = await call(t, "DELETE", "/api/admin/auth", { session: sessionOf(loggedIn) });
    expect(loggedOut.headers["set-cookie"]).toBeDefined();
    expect(loggedOut.headers["cache-control"]).toBe("no-store");
  });
});

describe("brute force", () => {
  it("locks password login for an account after 10 failures in 15 minutes, for 30 minutes, audited", async () => {
    const user = await registerUser(t);
    const headers = { "x-forwarded-for": "203.0.113.9" };
    for (let i = 0; i < 9; i++) expect((await login(user.email, `wrong password ${i}`, headers)).statusCode).toBe(401);
    // Issue 16 departure 3: the tenth failure is answered like the nine before; the lock applies from the eleventh attempt.
    const tenth = await login(user.email, "wrong password 9", headers);
    expect(tenth.statusCode).toBe(401);
    expect(json(tenth)).toMatchObject({ error: "Invalid email or password", code: "INVALID_CREDENTIALS" });
    // Even the right password is refused now.
    const eleventh = await login(user.email, PASSWORD);
    expect(eleventh.statusCode).toBe(429);
    expect(json(eleventh).code).toBe("ACCOUNT_LOCKED");
    t.clock.advance(29 * 60_000);
    expect((await login(user.email, PASSWORD)).statusCode).toBe(429);
    t.clock.advance(2 * 60_000);
    expect((await login(user.email, PASSWORD)).statusCode).toBe(200);
    const actions = (await auditActions(t)).filter((a) => a.resourceId === user.userId || (a.details as { email?: string } | null)?.email === user.email).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["user.lock", "user.throttle"]));
  });

  it("logs in with the right password on the tenth attempt, after nine failures", async () => {
    const user = await registerUser(t);
    const headers = { "x-forwarded-for": "203.0.113.10" };
    for (let i = 0; i < 9; i++) expect((await login(user.email, `wrong password ${i}`, headers)).statusCode).toBe(401);
    expect((await login(user.email, PASSWORD, headers)).statusCode).toBe(200);
  });

  it("locks unknown emails the same way, so a lock reveals nothing", async () => {
    const email = uniqueEmail("ghost");
    const headers = { "x-forwarded-for": "203.0.113.11" };
    for (let i = 0; i < 10; i++) expect((await login(email, `wrong password ${i}`, headers)).statusCode).toBe(401);
    expect((await login(email, "wrong password 10", headers)).statusCode).toBe(429);
  });

  it("failures spread over more than 15 minutes do not lock", async () => {
    const user = await registerUser(t);
    for (let i = 0; i < 12; i++) {
      expect((await login(user.email, `wrong password ${i}`)).statusCode).toBe(401);
      t.clock.advance(2 * 60_000);
    }
    expect((await login(user.email, PASSWORD)).statusCode).toBe(200);
  });

  it("refuses a client address after 30 failures in 15 minutes, across accounts", async () => {
    const limited = await buildTestApp();
    try {
      for (let i = 0; i < 30; i++) expect((await call(limited, "POST", "/api/admin/auth", { body: { email: uniqueEmail("spray"), password: "wrong password x" } })).statusCode).toBe(401);
      const res = await call(limited, "POST", "/api/admin/auth", { body: { email: uniqueEmail("spray"), password: "wrong password x" } });
      expect(res.statusCode).toBe(429);
      expect(json(res).code).toBe("TOO_MANY_LOGIN_ATTEMPTS");
    } finally {
      await limited.close();
    }
  });
});
