// POST and GET /api/admin/salespeople (CONTRACT §12): creation with the password rules, hashing,
// per-organization emails, audit, roles and tenancy.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { call, PASSWORD, uniqueEmail } from "../../test/support/identity.js";
import { registerOwner, setRole, type Registered } from "../../test/support/admin.js";
import { auditLogs, salespeople } from "../db/schema/index.js";

let t: TestApp;
let a: Registered;
let b: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, { orgName: "Org A" });
  b = await registerOwner(t, { orgName: "Org B" });
});
afterAll(() => t.close());

const create = (body: unknown, session = a.session) => call(t, "POST", "/api/admin/salespeople", { body, session });

describe("POST /api/admin/salespeople", () => {
  it("creates an account with an argon2id hash, in the session's organization and brand, audited", async () => {
    const email = uniqueEmail("Seller");
    const res = await create({ name: " Sam Seller ", email, password: PASSWORD, commissionRate: 0.12 });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body).toEqual({ success: true, salesperson: { id: expect.stringMatching(/^sp_/), name: "Sam Seller", email: email.toLowerCase() } });
    const [row] = await t.deps.database.db.select().from(salespeople).where(eq(salespeople.id, body.salesperson.id));
    expect(row).toMatchObject({ organizationId: a.organizationId, brandId: a.brandId, email: email.toLowerCase(), commissionRate: 0.12 });
    expect(row.passwordHash).toMatch(/^\$argon2id\$/);
    expect(row.passwordHash).not.toContain(PASSWORD);
    const [audit] = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.resourceId, row.id));
    expect(audit).toMatchObject({ action: "salesperson.create", actorId: a.userId, organizationId: a.organizationId, success: true });
    expect(JSON.stringify(audit.details)).not.toContain(PASSWORD);
  });

  it("refuses a taken email in the same organization, allows it in another", async () => {
    const email = uniqueEmail("dup");
    expect((await create({ name: "One", email, password: PASSWORD })).statusCode).toBe(200);
    const again = await create({ name: "Two", email: email.toUpperCase(), password: PASSWORD });
    expect(again.statusCode).toBe(400);
    expect(json(again)).toMatchObject({ error: "Email already exists", code: "EMAIL_EXISTS" });
    expect((await create({ name: "Other org", email, password: PASSWORD }, b.session)).statusCode).toBe(200);
  });

  it("applies the password rules and validates the body", async () => {
    const short = await create({ name: "S", email: uniqueEmail(), password: "short" });
    expect(short.statusCode).toBe(400);
    expect(json(short)).toMatchObject({ code: "VALIDATION_ERROR", details: "password" });
    for (const body of [
      { name: "S", email: "not-an-email", password: PASSWORD },
      { name: "", email: uniqueEmail(), password: PASSWORD },
      { name: "S", email: uniqueEmail(), password: PASSWORD, commissionRate: 1.5 },
      { email: uniqueEmail(), password: PASSWORD },
    ]) {
      const res = await create(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(json(res).code).toBe("VALIDATION_ERROR");
    }
  });

  it("answers 401 without a session and 403 for a member", async () => {
    const body = { name: "S", email: uniqueEmail(), password: PASSWORD };
    expect((await call(t, "POST", "/api/admin/salespeople", { body })).statusCode).toBe(401);
    const member = await registerOwner(t, { orgName: "Member org" });
    await setRole(t, member, "member");
    expect((await create(body, member.session)).statusCode).toBe(403);
    expect(await t.deps.database.db.select().from(salespeople).where(eq(salespeople.email, body.email))).toHaveLength(0);
  });
});

describe("GET /api/admin/salespeople", () => {
  it("lists only the organization's salespeople", async () => {
    const mine = json(await create({ name: "Listed", email: uniqueEmail("listed"), password: PASSWORD, commissionRate: 0.05 })).salesperson;
    const theirs = json(await create({ name: "Hidden", email: uniqueEmail("hidden"), password: PASSWORD }, b.session)).salesperson;
    const res = await call(t, "GET", "/api/admin/salespeople", { session: a.session });
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body.organizationId).toBe(a.organizationId);
    const ids = body.salespeople.map((s: any) => s.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    expect(body.salespeople.find((s: any) => s.id === mine.id)).toEqual({ ...mine, commissionRate: 0.05, brandId: a.brandId, createdAt: t.clock.now() });
    expect(JSON.stringify(body)).not.toContain("argon2");
  });

  it("answers 401 without a session and 403 for a member", async () => {
    expect((await call(t, "GET", "/api/admin/salespeople")).statusCode).toBe(401);
    const member = await registerOwner(t, { orgName: "Member org 2" });
    await setRole(t, member, "member");
    expect((await call(t, "GET", "/api/admin/salespeople", { session: member.session })).statusCode).toBe(403);
  });
});
