// GET /api/admin/audit-logs: tenant scope, every filter, full-text search, pagination edges and stats.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { call } from "../../test/support/identity.js";
import { registerOwner, setRole, type Registered } from "../../test/support/admin.js";
import { auditLogs } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";

let t: TestApp;
let a: Registered;
let b: Registered;
const T0 = Date.UTC(2026, 0, 1);

beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, { orgName: "Org A" });
  b = await registerOwner(t, { orgName: "Org B" });
  const row = (n: number, over: Partial<typeof auditLogs.$inferInsert>) => ({
    id: newId("aud"),
    organizationId: a.organizationId,
    brandId: a.brandId,
    actorType: "user" as const,
    actorId: a.userId,
    action: "commission.approve",
    resourceType: "commission",
    resourceId: `com_${n}`,
    success: true,
    details: { n },
    createdAt: new Date(T0 + n * 1000),
    ...over,
  });
  // 30 records in A: 20 approvals (2 failed), 5 system salesperson logins on another brand, 5 api link generations.
  const rows = [
    ...Array.from({ length: 20 }, (_, i) => row(i, { success: i >= 2 })),
    ...Array.from({ length: 5 }, (_, i) => row(20 + i, { actorType: "system", actorId: null, action: "salesperson.login", resourceType: "salesperson", resourceId: `sp_findme${i}`, brandId: "brand_other" })),
    ...Array.from({ length: 5 }, (_, i) => row(25 + i, { actorType: "api", actorId: "key_1", action: "checkout_link.generate", resourceType: "checkout_link", resourceId: `link_${i}` })),
  ];
  await t.deps.database.db.insert(auditLogs).values(rows);
  await t.deps.database.db.insert(auditLogs).values(row(99, { organizationId: b.organizationId, brandId: b.brandId, actorId: b.userId, resourceId: "com_of_b" }));
});
afterAll(() => t.close());

const list = (query: string, session = a.session) => call(t, "GET", `/api/admin/audit-logs${query ? `?${query}` : ""}`, { session });
const seeded = `startDate=${T0}&endDate=${T0 + 99_000}`;

describe("GET /api/admin/audit-logs", () => {
  it("lists the organization's records newest first with 20 per page by default", async () => {
    const all = json(await list(""));
    // Records written by the service itself (A's registration) are listed too.
    expect(all.logs.some((l: any) => l.action === "user.register" && l.actorId === a.userId)).toBe(true);
    const res = await list(seeded);
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body.pagination).toEqual({ page: 1, limit: 20, total: 30, totalPages: 2, totalExact: true });
    expect(body.logs).toHaveLength(20);
    const first = body.logs.find((l: any) => l.resourceId === "link_4");
    expect(first).toMatchObject({ actorType: "api", actorId: "key_1", action: "checkout_link.generate", resourceType: "checkout_link", success: true, createdAt: T0 + 29_000, details: { n: 29 } });
    const times = body.logs.map((l: any) => l.createdAt);
    expect([...times].sort((x, y) => y - x)).toEqual(times);
    expect(body.logs.some((l: any) => l.resourceId === "com_of_b")).toBe(false);
    expect(body.stats).toBeUndefined();
  });

  it("filters by action, resourceType, actorType, success, brandId and dates", async () => {
    const total = async (query: string) => json(await list(`${seeded}&${query}`)).pagination.total;
    expect(await total("action=commission.approve")).toBe(20);
    expect(await total("resourceType=salesperson")).toBe(5);
    expect(await total("actorType=api")).toBe(5);
    expect(await total("actorType=system")).toBe(5);
    expect(await total("success=false")).toBe(2);
    expect(await total("success=true")).toBe(28);
    expect(await total("brandId=brand_other")).toBe(5);
    expect(json(await list(`startDate=${T0 + 10_000}&endDate=${T0 + 14_000}`)).pagination.total).toBe(5);
    expect(await total("action=commission.approve&success=false")).toBe(2);
  });

  it("gives nothing for another organization's id, and its own id changes nothing", async () => {
    expect(json(await list(`organizationId=${b.organizationId}`))).toMatchObject({ logs: [], pagination: { total: 0, totalPages: 0 } });
    expect(json(await list(`organizationId=${a.organizationId}&${seeded}`)).pagination.total).toBe(30);
    // B sees only its own.
    const ofB = json(await list(seeded, b.session));
    expect(ofB.logs.map((l: any) => l.resourceId)).toEqual(["com_of_b"]);
  });

  it("searches action words, resource ids and actors by full text", async () => {
    const search = async (q: string) => json(await list(`${seeded}&search=${encodeURIComponent(q)}`));
    expect((await search("login")).pagination.total).toBe(5);
    expect((await search("salesperson.login")).pagination.total).toBe(5);
    expect((await search("sp_findme3")).logs.map((l: any) => l.resourceId)).toEqual(["sp_findme3"]);
    expect((await search("key_1")).pagination.total).toBe(5);
    expect((await search("approve commission")).pagination.total).toBe(20);
    expect((await search("nothing-like-this")).pagination.total).toBe(0);
    // Search composes with the other filters.
    expect(json(await list(`${seeded}&search=approve&success=false`)).pagination.total).toBe(2);
  });

  it("pages: a page past the end is empty with the real totals", async () => {
    const second = json(await list(`${seeded}&limit=7&page=5`));
    expect(second.pagination).toEqual({ page: 5, limit: 7, total: 30, totalPages: 5, totalExact: true });
    expect(second.logs).toHaveLength(2);
    const past = json(await list(`${seeded}&limit=7&page=9`));
    expect(past).toMatchObject({ logs: [], pagination: { page: 9, limit: 7, total: 30, totalPages: 5 } });
  });

  it("past 1 000 matches, the total is the database's estimate and says so", async () => {
    // A third organization with 12 000 records (seeded in SQL: the API would take minutes).
    const c = await registerOwner(t, { orgName: "Org C" });
    await t.deps.database.db.execute(sql`
      insert into audit_logs (id, organization_id, brand_id, actor_type, action, resource_type, success, created_at)
      select 'aud_many_' || g, ${c.organizationId}, ${c.brandId}, 'system', 'user.login', 'user', true, ${new Date(T0).toISOString()}::timestamptz + make_interval(secs => g)
      from generate_series(1, 12000) as g`);
    await t.deps.database.db.execute(sql`analyze audit_logs`);
    const body = json(await call(t, "GET", "/api/admin/audit-logs?action=user.login", { session: c.session }));
    expect(body.pagination.totalExact).toBe(false);
    expect(body.pagination.total).toBeGreaterThan(1_000);
    expect(body.pagination.totalPages).toBe(Math.ceil(body.pagination.total / 20));
    expect(body.logs).toHaveLength(20);
    // A narrower filter is counted exactly again.
    const narrow = json(await call(t, "GET", `/api/admin/audit-logs?action=user.login&endDate=${T0 + 50_000}`, { session: c.session }));
    expect(narrow.pagination).toMatchObject({ total: 50, totalExact: true });
  });

  it("caps limit at 100 and refuses limit 0 and page 0", async () => {
    const big = json(await list(`${seeded}&limit=1000`));
    expect(big.logs).toHaveLength(30);
    expect(big.pagination.limit).toBe(100);
    for (const query of ["limit=0", "page=0", "limit=-1", "actorType=robot", "success=maybe"]) {
      const res = await list(query);
      expect(res.statusCode, query).toBe(400);
      expect(json(res).code).toBe("VALIDATION_ERROR");
    }
  });

  it("adds stats over the filtered records", async () => {
    const body = json(await list(`${seeded}&includeStats=true`));
    expect(body.stats).toEqual({
      totalActions: 30,
      successRate: 93.33,
      actionsByType: { "commission.approve": 20, "salesperson.login": 5, "checkout_link.generate": 5 },
    });
    const none = json(await list(`organizationId=${b.organizationId}&includeStats=true`));
    expect(none.stats).toEqual({ totalActions: 0, successRate: 0, actionsByType: {} });
  });

  it("answers 401 without a session and 403 for a member", async () => {
    const anonymous = await call(t, "GET", "/api/admin/audit-logs");
    expect(anonymous.statusCode).toBe(401);
    expect(json(anonymous).error).toBe("Unauthorized");
    const member = await registerOwner(t, { orgName: "Member org" });
    await setRole(t, member, "member");
    const res = await list("", member.session);
    expect(res.statusCode).toBe(403);
    await setRole(t, member, "admin");
    expect((await list("", member.session)).statusCode).toBe(200);
  });
});
