// Organizations administration: list with deleted filters, create with generated unique slugs and a
// default brand, soft delete and restore by an owner of that organization only.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { addUser, adminCall, registerOwner } from "../../test/support/admin.js";
import { auditLogs, brandAccess, brands, DEFAULT_ORGANIZATION_ID, memberships, organizations, sessions } from "../db/schema/index.js";

let t: TestApp;
let a: Awaited<ReturnType<typeof registerOwner>>;
let b: Awaited<ReturnType<typeof registerOwner>>;
beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, "Shop A"); // the first user: owner of the platform default organization
  b = await registerOwner(t, "Shop B");
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const orgRow = async (id: string) => (await db().select().from(organizations).where(eq(organizations.id, id)))[0];
const createOrg = async (session: string, body: Record<string, unknown>) => adminCall(t, "POST", "/api/admin/organizations", { session, body });

describe("POST /api/admin/organizations", () => {
  it("creates the organization with a slug from the name, the caller as owner and a default brand; audited", async () => {
    const res = await createOrg(b.session, { name: "Ünïcode Store!" });
    expect(res.statusCode).toBe(200);
    const org = json(res);
    expect(org).toMatchObject({ success: true, name: "Ünïcode Store!", slug: "unicode-store", createdAt: t.clock.now() });
    expect((await orgRow(org.id)).deletedAt).toBeNull();
    const [membership] = await db().select().from(memberships).where(and(eq(memberships.organizationId, org.id), eq(memberships.userId, b.userId)));
    expect(membership.role).toBe("owner");
    const [brand] = await db().select().from(brands).where(eq(brands.organizationId, org.id));
    expect(brand).toMatchObject({ id: org.defaultBrandId, slug: "default", name: "Ünïcode Store!" });
    expect(await db().select().from(brandAccess).where(and(eq(brandAccess.brandId, brand.id), eq(brandAccess.userId, b.userId)))).toHaveLength(1);
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.action, "organization.create"), eq(auditLogs.resourceId, org.id)))).toHaveLength(1);
  });

  it("suffixes a generated slug that is taken with a number", async () => {
    const slugs = [];
    for (let i = 0; i < 3; i++) slugs.push(json(await createOrg(b.session, { name: "Acme Outlet" })).slug);
    expect(slugs).toEqual(["acme-outlet", "acme-outlet-2", "acme-outlet-3"]);
  });

  it("answers 409 SLUG_TAKEN for an explicit slug in use (another owner's too) and 400 for one not URL-safe", async () => {
    expect(json(await createOrg(a.session, { name: "Mine", slug: "mine-explicit" })).slug).toBe("mine-explicit");
    const taken = await createOrg(b.session, { name: "Theirs", slug: "mine-explicit" });
    expect(taken.statusCode).toBe(409);
    expect(json(taken)).toMatchObject({ error: "Slug already exists", code: "SLUG_TAKEN" });
    for (const slug of ["Upper", "with space", "-lead", "a--b", "", "x".repeat(49)]) {
      const res = await createOrg(b.session, { name: "Bad slug", slug });
      expect(res.statusCode, slug).toBe(400);
    }
    expect(await db().select().from(organizations).where(eq(organizations.name, "Bad slug"))).toHaveLength(0);
  });

  it("answers 400 for a blank name, 401 without a session, 403 for an admin", async () => {
    expect((await createOrg(b.session, { name: "  " })).statusCode).toBe(400);
    expect((await adminCall(t, "POST", "/api/admin/organizations", { body: { name: "X" } })).statusCode).toBe(401);
    const admin = await addUser(t, b.session, "admin");
    expect((await createOrg(admin.session, { name: "By admin" })).statusCode).toBe(403);
    expect(await db().select().from(organizations).where(eq(organizations.name, "By admin"))).toHaveLength(0);
  });
});

describe("GET /api/admin/organizations", () => {
  it("lists the caller's organizations with includeDeleted, deletedOnly and deletedCount", async () => {
    const c = await registerOwner(t, "Shop C");
    t.clock.advance(1000);
    const kept = json(await createOrg(c.session, { name: "Kept" }));
    t.clock.advance(1000);
    const gone = json(await createOrg(c.session, { name: "Gone" }));
    expect((await adminCall(t, "DELETE", `/api/admin/organizations/${gone.id}`, { session: c.session })).statusCode).toBe(200);

    const live = json(await adminCall(t, "GET", "/api/admin/organizations", { session: c.session }));
    expect(live.currentOrganizationId).toBe(c.organizationId);
    expect(live.deletedCount).toBe(1);
    expect(live.organizations.map((o: { id: string }) => o.id)).toEqual([c.organizationId, kept.id]);
    expect(live.organizations[1]).toEqual({ id: kept.id, name: "Kept", slug: kept.slug, createdAt: kept.createdAt });
    const all = json(await adminCall(t, "GET", "/api/admin/organizations?includeDeleted=true", { session: c.session }));
    expect(all.organizations.map((o: { id: string }) => o.id)).toEqual([c.organizationId, kept.id, gone.id]);
    const deleted = json(await adminCall(t, "GET", "/api/admin/organizations?deletedOnly=true", { session: c.session }));
    expect(deleted.organizations.map((o: { id: string }) => o.id)).toEqual([gone.id]);
    // Another owner sees none of them.
    const other = json(await adminCall(t, "GET", "/api/admin/organizations?includeDeleted=true", { session: b.session }));
    expect(other.organizations.map((o: { id: string }) => o.id)).not.toContain(kept.id);
  });

  it("answers 401 without a session and 403 for an admin or member", async () => {
    expect((await adminCall(t, "GET", "/api/admin/organizations")).statusCode).toBe(401);
    for (const role of ["admin", "member"] as const) {
      const user = await addUser(t, b.session, role);
      expect((await adminCall(t, "GET", "/api/admin/organizations", { session: user.session })).statusCode).toBe(403);
    }
  });
});

describe("DELETE and restore /api/admin/organizations/<id>", () => {
  it("soft-deletes an owned organization, ends every session on it, and restores it", async () => {
    const org = json(await createOrg(b.session, { name: "Temporary" }));
    const colleague = await addUser(t, b.session, "admin");
    // The colleague is added to the new organization and works there.
    const admin2 = await adminCall(t, "POST", "/api/admin/auth/switch-org", { session: b.session, body: { organizationId: org.id } });
    const bOnOrg = admin2.cookies.find((c) => c.name === "admin_session")!.value;
    await adminCall(t, "POST", "/api/admin/users", { session: bOnOrg, body: { email: colleague.email, password: "whatever password", name: "x", role: "admin", brandIds: [] } });
    const colleagueOnOrg = (await adminCall(t, "POST", "/api/admin/auth/switch-org", { session: colleague.session, body: { organizationId: org.id } })).cookies.find((c) => c.name === "admin_session")!.value;
    const back = (await adminCall(t, "POST", "/api/admin/auth/switch-org", { session: bOnOrg, body: { organizationId: b.organizationId } })).cookies.find((c) => c.name === "admin_session")!.value;
    b.session = back;

    const res = await adminCall(t, "DELETE", `/api/admin/organizations/${org.id}`, { session: b.session });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toMatchObject({ success: true, id: org.id, name: "Temporary" });
    expect((await orgRow(org.id)).deletedAt).not.toBeNull();
    expect(await db().select().from(sessions).where(eq(sessions.organizationId, org.id))).toHaveLength(0);
    expect((await adminCall(t, "GET", "/api/admin/brands", { session: colleagueOnOrg })).statusCode).toBe(401);
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.action, "organization.delete"), eq(auditLogs.resourceId, org.id)))).toHaveLength(1);
    // Deleting it again: nothing live by that id.
    expect((await adminCall(t, "DELETE", `/api/admin/organizations/${org.id}`, { session: b.session })).statusCode).toBe(404);

    const restored = await adminCall(t, "POST", `/api/admin/organizations/${org.id}/restore`, { session: b.session });
    expect(restored.statusCode).toBe(200);
    expect(json(restored)).toMatchObject({ success: true, id: org.id });
    expect((await orgRow(org.id)).deletedAt).toBeNull();
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.action, "organization.restore"), eq(auditLogs.resourceId, org.id)))).toHaveLength(1);
    // Restoring a live organization: nothing deleted by that id.
    expect((await adminCall(t, "POST", `/api/admin/organizations/${org.id}/restore`, { session: b.session })).statusCode).toBe(404);
  });

  it("refuses deleting the session's current organization and the platform default (409)", async () => {
    const current = await adminCall(t, "DELETE", `/api/admin/organizations/${b.organizationId}`, { session: b.session });
    expect(current.statusCode).toBe(409);
    expect(json(current).code).toBe("CURRENT_ORGANIZATION");
    expect((await orgRow(b.organizationId)).deletedAt).toBeNull();

    expect(a.organizationId).toBe(DEFAULT_ORGANIZATION_ID);
    const elsewhere = json(await createOrg(a.session, { name: "A elsewhere" }));
    const switched = await adminCall(t, "POST", "/api/admin/auth/switch-org", { session: a.session, body: { organizationId: elsewhere.id } });
    a.session = switched.cookies.find((c) => c.name === "admin_session")!.value;
    const res = await adminCall(t, "DELETE", `/api/admin/organizations/${DEFAULT_ORGANIZATION_ID}`, { session: a.session });
    expect(res.statusCode).toBe(409);
    expect(json(res).code).toBe("DEFAULT_TENANT");
    expect((await orgRow(DEFAULT_ORGANIZATION_ID)).deletedAt).toBeNull();
  });

  it("answers 404 for an organization the caller is not in, 403 for a non-owner member of it, 401 without a session", async () => {
    const c = await registerOwner(t, "Shop E");
    for (const [method, suffix] of [["DELETE", ""], ["POST", "/restore"]] as const) {
      expect((await adminCall(t, method, `/api/admin/organizations/${c.organizationId}${suffix}`, { session: b.session })).statusCode).toBe(404);
      expect((await adminCall(t, method, `/api/admin/organizations/${c.organizationId}${suffix}`)).statusCode).toBe(401);
    }
    const admin = await addUser(t, c.session, "admin");
    const spare = json(await createOrg(c.session, { name: "Spare" }));
    // The admin of c's organization is an admin (not owner) of the spare organization too.
    const cOnSpare = (await adminCall(t, "POST", "/api/admin/auth/switch-org", { session: c.session, body: { organizationId: spare.id } })).cookies.find((x) => x.name === "admin_session")!.value;
    await adminCall(t, "POST", "/api/admin/users", { session: cOnSpare, body: { email: admin.email, password: "whatever password", name: "x", role: "admin", brandIds: [] } });
    const refused = await adminCall(t, "DELETE", `/api/admin/organizations/${spare.id}`, { session: admin.session });
    expect(refused.statusCode).toBe(403);
    expect((await orgRow(spare.id)).deletedAt).toBeNull();
    expect((await orgRow(c.organizationId)).deletedAt).toBeNull();
    await db().update(organizations).set({ deletedAt: new Date() }).where(eq(organizations.id, spare.id));
    expect((await adminCall(t, "POST", `/api/admin/organizations/${spare.id}/restore`, { session: admin.session })).statusCode).toBe(403);
    expect((await orgRow(spare.id)).deletedAt).not.toBeNull();
  });
});
