// Registration (SPEC "User authentication" rule 1, CONTRACT §11, §27, REGISTRATION_MODE): every
// registration error of SPEC's table, the first user adopting the default organization, roles.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { brandAccess, DEFAULT_BRAND_ID, DEFAULT_ORGANIZATION_ID, memberships, organizations, users } from "../db/schema/index.js";
import { auditActions, call, cookieOf, PASSWORD, registerUser, uniqueEmail } from "../../test/support/identity.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe("POST /api/auth/register", () => {
  it("makes the first user owner of the default organization, renamed, and logs them in", async () => {
    const res = await call(t, "POST", "/api/auth/register", { body: { name: "First", email: "First@Example.com", password: PASSWORD, orgName: "First Shop" } });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true });
    const cookie = cookieOf(res, "admin_session")!;
    expect(cookie.value.length).toBeGreaterThanOrEqual(43);
    const db = t.deps.database.db;
    const [user] = await db.select().from(users).where(eq(users.email, "first@example.com"));
    expect(user.passwordHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(user.customerId).toMatch(/^cus_demo_/);
    const [org] = await db.select().from(organizations).where(eq(organizations.id, DEFAULT_ORGANIZATION_ID));
    expect(org.name).toBe("First Shop");
    expect(await db.select().from(memberships).where(eq(memberships.userId, user.id))).toMatchObject([{ organizationId: DEFAULT_ORGANIZATION_ID, role: "owner" }]);
    expect(await db.select().from(brandAccess).where(eq(brandAccess.userId, user.id))).toMatchObject([{ brandId: DEFAULT_BRAND_ID, role: "admin" }]);

    const me = await call(t, "GET", "/api/admin/auth", { session: cookie.value });
    expect(me.statusCode).toBe(200);
    expect(json(me)).toMatchObject({
      authenticated: true,
      session: { userId: user.id, organizationId: DEFAULT_ORGANIZATION_ID, brandId: DEFAULT_BRAND_ID, email: "first@example.com", name: "First", role: "owner" },
      organizations: [{ id: DEFAULT_ORGANIZATION_ID, name: "First Shop", slug: "first-shop" }],
      brands: [{ id: DEFAULT_BRAND_ID }],
    });
    const actions = (await auditActions(t, user.id)).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["user.register", "user.login"]));
  });

  it("gives later users their own organization and brand", async () => {
    const second = await registerUser(t, { orgName: "Second Shop" });
    const me = json(await call(t, "GET", "/api/admin/auth", { session: second.session }));
    expect(me.session.organizationId).not.toBe(DEFAULT_ORGANIZATION_ID);
    expect(me.session.role).toBe("owner");
    expect(me.organizations).toEqual([{ id: me.session.organizationId, name: "Second Shop", slug: "second-shop" }]);
    expect(me.brands).toHaveLength(1);
  });

  it.each(["name", "email", "password", "orgName"])("answers 400 Missing required fields without %s", async (field) => {
    const body: Record<string, string> = { name: "N", email: uniqueEmail(), password: PASSWORD, orgName: "O" };
    delete body[field];
    const res = await call(t, "POST", "/api/auth/register", { body });
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe("Missing required fields");
  });

  it("answers 400 Missing required fields for empty values and an empty body", async () => {
    const empty = await call(t, "POST", "/api/auth/register", { body: { name: " ", email: uniqueEmail(), password: PASSWORD, orgName: "O" } });
    expect(json(empty).error).toBe("Missing required fields");
    const none = await t.app.inject({ method: "POST", url: "/api/auth/register" });
    expect(none.statusCode).toBe(400);
    expect(json(none).error).toBe("Missing required fields");
  });

  it("answers 400 Email already exists, whatever the case", async () => {
    const user = await registerUser(t);
    const res = await call(t, "POST", "/api/auth/register", { body: { name: "Other", email: user.email.toUpperCase(), password: PASSWORD, orgName: "Other" } });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ error: "Email already exists", code: "EMAIL_EXISTS" });
  });

  it("refuses two concurrent registrations of one email but one", async () => {
    const body = { name: "Race", email: uniqueEmail("race"), password: PASSWORD, orgName: "Race" };
    const results = await Promise.all([1, 2].map(() => call(t, "POST", "/api/auth/register", { body })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400]);
  });

  it("refuses passwords outside 12 to 128 characters and common ones", async () => {
    for (const [password, error] of [
      ["short pass", "Password must be 12 to 128 characters"],
      ["x".repeat(129), "Password must be 12 to 128 characters"],
      ["Password1234", "Password is too common"],
    ]) {
      const res = await call(t, "POST", "/api/auth/register", { body: { name: "N", email: uniqueEmail(), password, orgName: "O" } });
      expect(res.statusCode, password).toBe(400);
      expect(json(res).error).toBe(error);
    }
    const ok = await call(t, "POST", "/api/auth/register", { body: { name: "N", email: uniqueEmail(), password: "x".repeat(128), orgName: "O" } });
    expect(ok.statusCode).toBe(200);
  });

  it("refuses an invalid email", async () => {
    const res = await call(t, "POST", "/api/auth/register", { body: { name: "N", email: "not-an-email", password: PASSWORD, orgName: "O" } });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "email" });
  });
});

describe("REGISTRATION_MODE", () => {
  it("disabled: 403 New user registration is currently disabled, even for an incomplete body", async () => {
    const off = await buildTestApp({ env: { REGISTRATION_MODE: "disabled" } });
    try {
      for (const body of [{ name: "N", email: uniqueEmail(), password: PASSWORD, orgName: "O" }, {}]) {
        const res = await call(off, "POST", "/api/auth/register", { body });
        expect(res.statusCode).toBe(403);
        expect(json(res).error).toBe("New user registration is currently disabled");
      }
    } finally {
      await off.close();
    }
  });

  it("maintenance: 503 System is under maintenance", async () => {
    const maintenance = await buildTestApp({ env: { REGISTRATION_MODE: "maintenance" } });
    try {
      const res = await call(maintenance, "POST", "/api/auth/register", { body: { name: "N", email: uniqueEmail(), password: PASSWORD, orgName: "O" } });
      expect(res.statusCode).toBe(503);
      expect(json(res).error).toBe("System is under maintenance");
    } finally {
      await maintenance.close();
    }
  });
});
