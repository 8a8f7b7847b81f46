// Users administration: list, create with brand access, read, change role, remove, with the role
// rules (no more rights than the creator, last owner stays) and tenancy (another organization's user is a 404).
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { addUser, adminCall, registerOwner } from "../../test/support/admin.js";
import { call, PASSWORD, uniqueEmail } from "../../test/support/identity.js";
import { auditLogs, brandAccess, brands, memberships, sessions, users } from "../db/schema/index.js";

let t: TestApp;
let a: Awaited<ReturnType<typeof registerOwner>>;
let b: Awaited<ReturnType<typeof registerOwner>>;
beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, "Shop A");
  b = await registerOwner(t, "Shop B");
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const membershipOf = async (userId: string, organizationId: string) =>
  (await db().select().from(memberships).where(and(eq(memberships.userId, userId), eq(memberships.organizationId, organizationId))))[0];
const auditOf = async (action: string, resourceId: string) => (await db().select().from(auditLogs).where(and(eq(auditLogs.action, action), eq(auditLogs.resourceId, resourceId))));
const newUserBody = (overrides: Record<string, unknown> = {}) => ({ email: uniqueEmail("new"), password: PASSWORD, name: "New Person", role: "member", brandIds: [a.brandId], ...overrides });

describe("GET /api/admin/users", () => {
  it("lists the users of the session's organization with their role, and only those", async () => {
    const member = await addUser(t, a.session, "member", [a.brandId]);
    const res = await adminCall(t, "GET", "/api/admin/users", { session: a.session });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body.organizationId).toBe(a.organizationId);
    expect(body.users).toEqual(
      expect.arrayContaining([
        { id: a.userId, email: a.email, name: a.name, role: "owner", createdAt: expect.any(Number) },
        { id: member.userId, email: member.email, name: "A member", role: "member", createdAt: expect.any(Number) },
      ]),
    );
    expect(body.users.map((u: { id: string }) => u.id)).not.toContain(b.userId);
  });

  it("answers 401 Unauthorized without a session and 403 for a member", async () => {
    const none = await adminCall(t, "GET", "/api/admin/users");
    expect(none.statusCode).toBe(401);
    expect(json(none).error).toBe("Unauthorized");
    const member = await addUser(t, a.session, "member");
    expect((await adminCall(t, "GET", "/api/admin/users", { session: member.session })).statusCode).toBe(403);
    const admin = await addUser(t, a.session, "admin");
    expect((await adminCall(t, "GET", "/api/admin/users", { session: admin.session })).statusCode).toBe(200);
  });
});

describe("POST /api/admin/users", () => {
  it("creates the user with a hashed password, the membership, brand access and an audit record; the user can log in", async () => {
    const body = newUserBody({ role: "admin" });
    const res = await adminCall(t, "POST", "/api/admin/users", { session: a.session, body });
    expect(res.statusCode).toBe(200);
    const created = json(res);
    expect(created).toMatchObject({ success: true, email: body.email, name: "New Person", role: "admin", existingUser: false, brandAccess: [{ brandId: a.brandId, role: "admin" }] });
    const [row] = await db().select().from(users).where(eq(users.id, created.id));
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect((await membershipOf(created.id, a.organizationId)).role).toBe("admin");
    expect(await auditOf("user.create", created.id)).toHaveLength(1);
    const login = await call(t, "POST", "/api/admin/auth", { body: { email: body.email, password: PASSWORD } });
    expect(login.statusCode).toBe(200);
  });

  it("refuses an owner created by an admin (403) and lets an owner create one", async () => {
    const admin = await addUser(t, a.session, "admin");
    const refused = newUserBody({ role: "owner" });
    const res = await adminCall(t, "POST", "/api/admin/users", { session: admin.session, body: refused });
    expect(res.statusCode).toBe(403);
    expect(await db().select().from(users).where(eq(users.email, refused.email))).toHaveLength(0);
    const ok = await adminCall(t, "POST", "/api/admin/users", { session: a.session, body: newUserBody({ role: "owner" }) });
    expect(ok.statusCode).toBe(200);
    expect(json(ok).role).toBe("owner");
  });

  it("answers 404 for a brand of another organization or a deleted brand, and stores nothing", async () => {
    for (const brandId of [b.brandId, "brand_missing"]) {
      const body = newUserBody({ brandIds: [a.brandId, brandId] });
      const res = await adminCall(t, "POST", "/api/admin/users", { session: a.session, body });
      expect(res.statusCode).toBe(404);
      expect(json(res).error).toBe("Brand not found");
      expect(await db().select().from(users).where(eq(users.email, body.email))).toHaveLength(0);
    }
    const extra = json(await adminCall(t, "POST", "/api/admin/brands", { session: a.session, body: { name: "Gone soon" } }));
    await db().update(brands).set({ deletedAt: new Date() }).where(eq(brands.id, extra.id));
    expect((await adminCall(t, "POST", "/api/admin/users", { session: a.session, body: newUserBody({ brandIds: [extra.id] }) })).statusCode).toBe(404);
  });

  it("applies the password rules and validates email, name and role", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ password: "short" }, "password"],
      [{ password: "password1234" }, "password"],
      [{ email: "not-an-email" }, "email"],
      [{ name: "   " }, ""],
      [{ role: "superuser" }, "role"],
    ];
    for (const [overrides, field] of cases) {
      const res = await adminCall(t, "POST", "/api/admin/users", { session: a.session, body: newUserBody(overrides) });
      expect(res.statusCode, JSON.stringify(overrides)).toBe(400);
      if (field) expect(json(res).details ?? "").toContain(field);
    }
  });

  it("adds an existing user of another organization as a member without changing their password or name", async () => {
    const res = await adminCall(t, "POST", "/api/admin/users", { session: a.session, body: newUserBody({ email: b.email, password: "a different password", name: "Renamed" }) });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ id: b.userId, name: b.name, role: "member", existingUser: true });
    expect((await membershipOf(b.userId, a.organizationId)).role).toBe("member");
    expect((await membershipOf(b.userId, b.organizationId)).role).toBe("owner");
    expect((await call(t, "POST", "/api/admin/auth", { body: { email: b.email, password: PASSWORD } })).statusCode).toBe(200);
    expect((await call(t, "POST", "/api/admin/auth", { body: { email: b.email, password: "a different password" } })).statusCode).toBe(401);
    // Clean up: b leaves organization A again.
    expect((await adminCall(t, "DELETE", `/api/admin/users/${b.userId}`, { session: a.session })).statusCode).toBe(200);
  });

  it("answers 400 Email already exists for a user already in the organization", async () => {
    const res = await adminCall(t, "POST", "/api/admin/users", { session: a.session, body: newUserBody({ email: a.email.toUpperCase() }) });
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe("Email already exists");
    expect((await membershipOf(a.userId, a.organizationId)).role).toBe("owner");
  });

  it("answers 401 without a session and 403 for a member", async () => {
    expect((await adminCall(t, "POST", "/api/admin/users", { body: newUserBody() })).statusCode).toBe(401);
    const member = await addUser(t, a.session, "member");
    const body = newUserBody();
    expect((await adminCall(t, "POST", "/api/admin/users", { session: member.session, body })).statusCode).toBe(403);
    expect(await db().select().from(users).where(eq(users.email, body.email))).toHaveLength(0);
  });
});

describe("GET /api/admin/users/<userId>", () => {
  it("answers the user and their brand access in this organization to any role", async () => {
    const member = await addUser(t, a.session, "member", [a.brandId]);
    const res = await adminCall(t, "GET", `/api/admin/users/${member.userId}`, { session: member.session });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ user: { id: member.userId, email: member.email, name: "A member", role: "member" }, brandAccess: [{ brandId: a.brandId, role: "member" }] });
  });

  it("answers 404 for a user of another organization or an unknown id, 401 without a session", async () => {
    for (const id of [b.userId, "usr_missing"]) {
      const res = await adminCall(t, "GET", `/api/admin/users/${id}`, { session: a.session });
      expect(res.statusCode).toBe(404);
      expect(json(res).error).toBe("User not found");
    }
    expect((await adminCall(t, "GET", `/api/admin/users/${a.userId}`)).statusCode).toBe(401);
  });
});

describe("PUT /api/admin/users/<userId>", () => {
  it("changes the role; brand access of this organization follows; audited", async () => {
    const member = await addUser(t, a.session, "member", [a.brandId]);
    const res = await adminCall(t, "PUT", `/api/admin/users/${member.userId}`, { session: a.session, body: { role: "admin" } });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ success: true, id: member.userId, role: "admin" });
    expect((await membershipOf(member.userId, a.organizationId)).role).toBe("admin");
    const [access] = await db().select().from(brandAccess).where(eq(brandAccess.userId, member.userId));
    expect(access.role).toBe("admin");
    const [audit] = await auditOf("user.update_role", member.userId);
    expect(audit.details).toMatchObject({ from: "member", to: "admin" });
    // The new role holds at once for the user's session.
    expect((await adminCall(t, "GET", "/api/admin/users", { session: member.session })).statusCode).toBe(200);
  });

  it("refuses an admin making an owner or changing an owner (403)", async () => {
    const admin = await addUser(t, a.session, "admin");
    const member = await addUser(t, a.session, "member");
    expect((await adminCall(t, "PUT", `/api/admin/users/${member.userId}`, { session: admin.session, body: { role: "owner" } })).statusCode).toBe(403);
    expect((await adminCall(t, "PUT", `/api/admin/users/${a.userId}`, { session: admin.session, body: { role: "member" } })).statusCode).toBe(403);
    expect((await membershipOf(member.userId, a.organizationId)).role).toBe("member");
    expect((await membershipOf(a.userId, a.organizationId)).role).toBe("owner");
    // An admin may still change a member.
    expect((await adminCall(t, "PUT", `/api/admin/users/${member.userId}`, { session: admin.session, body: { role: "admin" } })).statusCode).toBe(200);
  });

  it("refuses demoting the last owner (409) and allows it when another owner remains", async () => {
    const c = await registerOwner(t, "Shop C");
    const res = await adminCall(t, "PUT", `/api/admin/users/${c.userId}`, { session: c.session, body: { role: "admin" } });
    expect(res.statusCode).toBe(409);
    expect(json(res).code).toBe("LAST_OWNER");
    expect((await membershipOf(c.userId, c.organizationId)).role).toBe("owner");
    const second = await addUser(t, c.session, "owner");
    expect((await adminCall(t, "PUT", `/api/admin/users/${second.userId}`, { session: c.session, body: { role: "member" } })).statusCode).toBe(200);
  });

  it("keeps one owner when two owners demote each other at the same time", async () => {
    const c = await registerOwner(t, "Shop Race");
    const second = await addUser(t, c.session, "owner");
    const [one, two] = await Promise.all([
      adminCall(t, "PUT", `/api/admin/users/${second.userId}`, { session: c.session, body: { role: "admin" } }),
      adminCall(t, "PUT", `/api/admin/users/${c.userId}`, { session: second.session, body: { role: "admin" } }),
    ]);
    // The loser is refused either as the last owner (409, both requests already past the role check)
    // or as an admin changing an owner (403, its session read the role after the winner's commit).
    const codes = [one.statusCode, two.statusCode].sort();
    expect(codes[0]).toBe(200);
    expect([403, 409]).toContain(codes[1]);
    const owners = (await db().select().from(memberships).where(eq(memberships.organizationId, c.organizationId))).filter((m) => m.role === "owner");
    expect(owners).toHaveLength(1);
  });

  it("answers 404 for another organization's user, 403 for a member, 401 without a session, 400 for an unknown role", async () => {
    expect((await adminCall(t, "PUT", `/api/admin/users/${b.userId}`, { session: a.session, body: { role: "member" } })).statusCode).toBe(404);
    expect((await membershipOf(b.userId, b.organizationId)).role).toBe("owner");
    const member = await addUser(t, a.session, "member");
    expect((await adminCall(t, "PUT", `/api/admin/users/${member.userId}`, { session: member.session, body: { role: "admin" } })).statusCode).toBe(403);
    expect((await adminCall(t, "PUT", `/api/admin/users/${member.userId}`, { body: { role: "admin" } })).statusCode).toBe(401);
    expect((await adminCall(t, "PUT", `/api/admin/users/${member.userId}`, { session: a.session, body: { role: "root" } })).statusCode).toBe(400);
  });
});

describe("DELETE /api/admin/users/<userId>", () => {
  it("removes membership and brand access here, ends the user's sessions on this organization only", async () => {
    const member = await addUser(t, a.session, "member", [a.brandId]);
    // The same person also belongs to organization B, with a second session switched there (switch-org rotates it off A).
    expect((await adminCall(t, "POST", "/api/admin/users", { session: b.session, body: newUserBody({ email: member.email, brandIds: [b.brandId] }) })).statusCode).toBe(200);
    const switched = await adminCall(t, "POST", "/api/admin/auth/switch-org", { session: (await addLogin(member.email)), body: { organizationId: b.organizationId } });
    expect(switched.statusCode).toBe(200);
    const sessionOnB = switched.cookies.find((c) => c.name === "admin_session")!.value;

    const res = await adminCall(t, "DELETE", `/api/admin/users/${member.userId}`, { session: a.session });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ success: true, id: member.userId, role: "member", sessionsEnded: 1 });
    expect(await membershipOf(member.userId, a.organizationId)).toBeUndefined();
    expect(await db().select().from(brandAccess).where(and(eq(brandAccess.userId, member.userId), eq(brandAccess.brandId, a.brandId)))).toHaveLength(0);
    expect(await db().select().from(sessions).where(and(eq(sessions.userId, member.userId), eq(sessions.organizationId, a.organizationId)))).toHaveLength(0);
    expect((await adminCall(t, "GET", `/api/admin/users/${member.userId}`, { session: member.session })).statusCode).toBe(401);
    // Organization B is untouched.
    expect((await membershipOf(member.userId, b.organizationId)).role).toBe("member");
    expect((await adminCall(t, "GET", `/api/admin/users/${member.userId}`, { session: sessionOnB })).statusCode).toBe(200);
    expect(await auditOf("user.remove", member.userId)).toHaveLength(1);
  });

  it("refuses removing the last owner (409)", async () => {
    const c = await registerOwner(t, "Shop D");
    const res = await adminCall(t, "DELETE", `/api/admin/users/${c.userId}`, { session: c.session });
    expect(res.statusCode).toBe(409);
    expect(json(res).code).toBe("LAST_OWNER");
    expect((await membershipOf(c.userId, c.organizationId)).role).toBe("owner");
  });

  it("answers 403 for an admin, 404 for another organization's user, 401 without a session", async () => {
    const admin = await addUser(t, a.session, "admin");
    const member = await addUser(t, a.session, "member");
    expect((await adminCall(t, "DELETE", `/api/admin/users/${member.userId}`, { session: admin.session })).statusCode).toBe(403);
    expect((await adminCall(t, "DELETE", `/api/admin/users/${b.userId}`, { session: a.session })).statusCode).toBe(404);
    expect((await adminCall(t, "DELETE", `/api/admin/users/${member.userId}`)).statusCode).toBe(401);
    expect(await membershipOf(member.userId, a.organizationId)).toBeDefined();
    expect(await membershipOf(b.userId, b.organizationId)).toBeDefined();
  });
});

async function addLogin(email: string): Promise<string> {
  const res = await call(t, "POST", "/api/admin/auth", { body: { email, password: PASSWORD } });
  return res.cookies.find((c) => c.name === "admin_session")!.value;
}
