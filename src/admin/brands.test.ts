// Brands administration: list (members see their brands; deleted ones for owners), create with
// slugs unique within the organization, soft delete and restore, scoped to the session's organization.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { addUser, adminCall, registerOwner } from "../../test/support/admin.js";
import { auditLogs, brands, DEFAULT_BRAND_ID, sessions } from "../db/schema/index.js";
import { sha256 } from "../lib/crypto.js";

let t: TestApp;
let a: Awaited<ReturnType<typeof registerOwner>>;
let b: Awaited<ReturnType<typeof registerOwner>>;
beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, "Shop A"); // owner of the platform default organization and brand
  b = await registerOwner(t, "Shop B");
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const brandRow = async (id: string) => (await db().select().from(brands).where(eq(brands.id, id)))[0];
const createBrand = async (session: string, body: Record<string, unknown>) => adminCall(t, "POST", "/api/admin/brands", { session, body });
const ids = (body: Record<string, any>): string[] => body.brands.map((x: { id: string }) => x.id);

describe("POST /api/admin/brands", () => {
  it("creates a brand in the session's organization with a slug from the name; audited", async () => {
    const res = await createBrand(b.session, { name: "Summer Sale" });
    expect(res.statusCode).toBe(200);
    const brand = json(res);
    expect(brand).toEqual({ success: true, id: expect.any(String), name: "Summer Sale", slug: "summer-sale", organizationId: b.organizationId });
    expect(await brandRow(brand.id)).toMatchObject({ organizationId: b.organizationId, slug: "summer-sale", deletedAt: null });
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.action, "brand.create"), eq(auditLogs.resourceId, brand.id)))).toHaveLength(1);
  });

  it("suffixes a taken generated slug; slugs are unique per organization only", async () => {
    expect(json(await createBrand(b.session, { name: "Outlet" })).slug).toBe("outlet");
    expect(json(await createBrand(b.session, { name: "Outlet" })).slug).toBe("outlet-2");
    expect(json(await createBrand(a.session, { name: "Outlet" })).slug).toBe("outlet");
  });

  it("answers 409 for an explicit slug taken in the organization and 400 for one not URL-safe", async () => {
    expect(json(await createBrand(b.session, { name: "Winter", slug: "winter" })).slug).toBe("winter");
    const taken = await createBrand(b.session, { name: "Winter again", slug: "winter" });
    expect(taken.statusCode).toBe(409);
    expect(json(taken).code).toBe("SLUG_TAKEN");
    expect((await createBrand(b.session, { name: "Bad", slug: "Not Safe" })).statusCode).toBe(400);
    expect((await createBrand(b.session, { name: " " })).statusCode).toBe(400);
  });

  it("honours Idempotency-Key: a repeat answers the first brand and creates nothing more", async () => {
    const send = () =>
      t.app.inject({
        method: "POST",
        url: "/api/admin/brands",
        cookies: { admin_session: b.session },
        headers: { origin: "http://checkout.test", "content-type": "application/json", "idempotency-key": "brand-create-1" },
        payload: JSON.stringify({ name: "Once" }),
      });
    const first = await send();
    const second = await send();
    expect(first.statusCode).toBe(200);
    expect(json(second)).toEqual(json(first));
    expect(await db().select().from(brands).where(and(eq(brands.organizationId, b.organizationId), eq(brands.name, "Once")))).toHaveLength(1);
  });

  it("answers 401 without a session and 403 for a member; an admin may create", async () => {
    expect((await adminCall(t, "POST", "/api/admin/brands", { body: { name: "X" } })).statusCode).toBe(401);
    const member = await addUser(t, b.session, "member");
    expect((await createBrand(member.session, { name: "By member" })).statusCode).toBe(403);
    const admin = await addUser(t, b.session, "admin");
    expect((await createBrand(admin.session, { name: "By admin" })).statusCode).toBe(200);
  });
});

describe("GET /api/admin/brands", () => {
  it("lists the organization's brands with currentBrandId; members only their granted brands", async () => {
    const c = await registerOwner(t, "Shop C");
    const second = json(await createBrand(c.session, { name: "Second" }));
    const owner = json(await adminCall(t, "GET", "/api/admin/brands", { session: c.session }));
    expect(owner).toMatchObject({ currentBrandId: c.brandId, organizationId: c.organizationId, deletedCount: 0 });
    expect(new Set(ids(owner))).toEqual(new Set([c.brandId, second.id]));
    expect(owner.brands).toContainEqual({ id: second.id, name: "Second", slug: "second", organizationId: c.organizationId });
    const member = await addUser(t, c.session, "member", [second.id]);
    const seen = json(await adminCall(t, "GET", "/api/admin/brands", { session: member.session }));
    expect(ids(seen)).toEqual([second.id]);
  });

  it("shows deleted brands to owners with includeDeleted and deletedOnly; 403 for others", async () => {
    const c = await registerOwner(t, "Shop D");
    const gone = json(await createBrand(c.session, { name: "Gone" }));
    expect((await adminCall(t, "DELETE", `/api/admin/brands/${gone.id}`, { session: c.session })).statusCode).toBe(200);
    const live = json(await adminCall(t, "GET", "/api/admin/brands", { session: c.session }));
    expect(ids(live)).toEqual([c.brandId]);
    expect(live.deletedCount).toBe(1);
    expect(new Set(ids(json(await adminCall(t, "GET", "/api/admin/brands?includeDeleted=true", { session: c.session }))))).toEqual(new Set([c.brandId, gone.id]));
    expect(ids(json(await adminCall(t, "GET", "/api/admin/brands?deletedOnly=true", { session: c.session })))).toEqual([gone.id]);
    const admin = await addUser(t, c.session, "admin");
    for (const query of ["deletedOnly=true", "includeDeleted=true"]) {
      expect((await adminCall(t, "GET", `/api/admin/brands?${query}`, { session: admin.session })).statusCode).toBe(403);
    }
    expect((await adminCall(t, "GET", "/api/admin/brands")).statusCode).toBe(401);
  });
});

describe("DELETE and restore /api/admin/brands/<id>", () => {
  it("soft-deletes a brand, clears it from sessions on it, and restores it; both audited", async () => {
    const brand = json(await createBrand(b.session, { name: "Flash" }));
    const switched = await adminCall(t, "POST", "/api/admin/auth/switch-brand", { session: b.session, body: { brandId: brand.id } });
    b.session = switched.cookies.find((c) => c.name === "admin_session")!.value;

    const res = await adminCall(t, "DELETE", `/api/admin/brands/${brand.id}`, { session: b.session });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true, id: brand.id, name: "Flash", slug: "flash", organizationId: b.organizationId });
    expect((await brandRow(brand.id)).deletedAt).not.toBeNull();
    const [session] = await db().select().from(sessions).where(eq(sessions.idHash, sha256(b.session)));
    expect(session.brandId).toBeNull();
    expect((await adminCall(t, "DELETE", `/api/admin/brands/${brand.id}`, { session: b.session })).statusCode).toBe(404);

    const restored = await adminCall(t, "POST", `/api/admin/brands/${brand.id}/restore`, { session: b.session });
    expect(restored.statusCode).toBe(200);
    expect((await brandRow(brand.id)).deletedAt).toBeNull();
    expect((await adminCall(t, "POST", `/api/admin/brands/${brand.id}/restore`, { session: b.session })).statusCode).toBe(404);
    const actions = (await db().select().from(auditLogs).where(eq(auditLogs.resourceId, brand.id))).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(["brand.delete", "brand.restore"]));
  });

  it("refuses deleting the organization's last live brand and the platform default brand (409)", async () => {
    const c = await registerOwner(t, "Shop E");
    const last = await adminCall(t, "DELETE", `/api/admin/brands/${c.brandId}`, { session: c.session });
    expect(last.statusCode).toBe(409);
    expect(json(last).code).toBe("LAST_BRAND");
    expect((await brandRow(c.brandId)).deletedAt).toBeNull();

    expect(a.brandId).toBe(DEFAULT_BRAND_ID);
    const res = await adminCall(t, "DELETE", `/api/admin/brands/${DEFAULT_BRAND_ID}`, { session: a.session });
    expect(res.statusCode).toBe(409);
    expect(json(res).code).toBe("DEFAULT_TENANT");
    expect((await brandRow(DEFAULT_BRAND_ID)).deletedAt).toBeNull();
  });

  it("keeps one live brand when the last two are deleted at the same time", async () => {
    const c = await registerOwner(t, "Shop Race");
    const second = json(await createBrand(c.session, { name: "Second" }));
    const results = await Promise.all([c.brandId, second.id].map((id) => adminCall(t, "DELETE", `/api/admin/brands/${id}`, { session: c.session })));
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const live = (await db().select().from(brands).where(eq(brands.organizationId, c.organizationId))).filter((x) => !x.deletedAt);
    expect(live).toHaveLength(1);
  });

  it("answers 404 for another organization's brand, 403 for a member, 401 without a session", async () => {
    const mine = json(await createBrand(b.session, { name: "Mine" }));
    const theirs = json(await createBrand(a.session, { name: "Theirs" }));
    expect((await adminCall(t, "DELETE", `/api/admin/brands/${theirs.id}`, { session: b.session })).statusCode).toBe(404);
    expect((await brandRow(theirs.id)).deletedAt).toBeNull();
    await db().update(brands).set({ deletedAt: new Date() }).where(eq(brands.id, theirs.id));
    expect((await adminCall(t, "POST", `/api/admin/brands/${theirs.id}/restore`, { session: b.session })).statusCode).toBe(404);
    expect((await brandRow(theirs.id)).deletedAt).not.toBeNull();

    const member = await addUser(t, b.session, "member", [mine.id]);
    expect((await adminCall(t, "DELETE", `/api/admin/brands/${mine.id}`, { session: member.session })).statusCode).toBe(403);
    expect((await adminCall(t, "POST", `/api/admin/brands/${mine.id}/restore`, { session: member.session })).statusCode).toBe(403);
    expect((await adminCall(t, "DELETE", `/api/admin/brands/${mine.id}`)).statusCode).toBe(401);
    expect((await adminCall(t, "POST", `/api/admin/brands/${mine.id}/restore`)).statusCode).toBe(401);
    expect((await brandRow(mine.id)).deletedAt).toBeNull();
  });
});

describe("PUT /api/admin/brands/:id", () => {
  const rename = (session: string, id: string, body: Record<string, unknown>) => adminCall(t, "PUT", `/api/admin/brands/${id}`, { session, body });

  it("the first registration names the adopted default brand after its organization", async () => {
    expect(a.brandId).toBe(DEFAULT_BRAND_ID);
    expect((await brandRow(DEFAULT_BRAND_ID))!.name).toBe("Shop A");
  });

  it("renames a brand, keeps its slug, and audits the old and new name", async () => {
    const brand = json(await createBrand(b.session, { name: "Old Name" }));
    const res = await rename(b.session, brand.id, { name: "  New Name  " });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ success: true, id: brand.id, name: "New Name", slug: "old-name", organizationId: b.organizationId });
    expect(await brandRow(brand.id)).toMatchObject({ name: "New Name", slug: "old-name" });
    const [audit] = await db().select().from(auditLogs).where(and(eq(auditLogs.action, "brand.update"), eq(auditLogs.resourceId, brand.id)));
    expect(audit).toMatchObject({ success: true, details: { from: "Old Name", to: "New Name" } });
    const listed = json(await adminCall(t, "GET", "/api/admin/brands", { session: b.session }));
    expect(listed.brands.find((x: { id: string }) => x.id === brand.id).name).toBe("New Name");
  });

  it("refuses a blank or too long name (400), a member (403), another organization's or a deleted brand (404), changing nothing", async () => {
    const brand = json(await createBrand(b.session, { name: "Kept" }));
    expect((await rename(b.session, brand.id, { name: "  " })).statusCode).toBe(400);
    expect((await rename(b.session, brand.id, { name: "x".repeat(201) })).statusCode).toBe(400);
    expect((await rename(b.session, brand.id, {})).statusCode).toBe(400);
    const member = await addUser(t, b.session, "member", [brand.id]);
    expect((await rename(member.session, brand.id, { name: "By member" })).statusCode).toBe(403);
    expect((await rename(a.session, brand.id, { name: "Stolen" })).statusCode).toBe(404);
    expect((await adminCall(t, "PUT", `/api/admin/brands/${brand.id}`, { body: { name: "Anon" } })).statusCode).toBe(401);
    const gone = json(await createBrand(b.session, { name: "Gone" }));
    expect((await adminCall(t, "DELETE", `/api/admin/brands/${gone.id}`, { session: b.session })).statusCode).toBe(200);
    expect((await rename(b.session, gone.id, { name: "Back" })).statusCode).toBe(404);
    expect((await brandRow(brand.id))!.name).toBe("Kept");
    expect((await brandRow(gone.id))!.name).toBe("Gone");
    const admin = await addUser(t, b.session, "admin");
    expect((await rename(admin.session, brand.id, { name: "By admin" })).statusCode).toBe(200);
  });
});
