// GET and POST /api/admin/commissions: brand scope, filters, pagination, report, and the bulk actions
// of CONTRACT §13 with per-id refusals, audit records and tenancy.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { call } from "../../test/support/identity.js";
import { registerOwner, setRole, type Registered } from "../../test/support/admin.js";
import { auditLogs, brands, commissions, type CommissionStatus } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";

let t: TestApp;
let a: Registered;
let b: Registered;
let otherBrandOfA: string;
const T0 = Date.UTC(2026, 5, 1);

async function seedCommission(owner: { organizationId: string; brandId: string }, over: Partial<typeof commissions.$inferInsert> = {}) {
  const id = newId("com");
  const at = new Date(over.createdAt ?? T0);
  await t.deps.database.db.insert(commissions).values({
    id,
    organizationId: owner.organizationId,
    brandId: owner.brandId,
    orderRef: newId("ord"),
    orderId: `order-${id.slice(-6)}`,
    salespersonId: "sp_1",
    salespersonName: "Sam Seller",
    orderAmountCents: 10_000,
    commissionAmountCents: 1_000,
    currency: "USD",
    commissionRate: 0.1,
    commissionType: "percentage",
    status: "pending",
    createdAt: at,
    updatedAt: at,
    ...over,
  });
  return id;
}

const statusOf = async (id: string) => (await t.deps.database.db.select({ status: commissions.status }).from(commissions).where(eq(commissions.id, id)))[0]?.status;
const bulk = (body: unknown, session = a.session) => call(t, "POST", "/api/admin/commissions", { body, session });
const list = (query = "", session = a.session) => call(t, "GET", `/api/admin/commissions${query ? `?${query}` : ""}`, { session });

beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, { orgName: "Org A" });
  b = await registerOwner(t, { orgName: "Org B" });
  otherBrandOfA = newId("brand");
  await t.deps.database.db.insert(brands).values({ id: otherBrandOfA, organizationId: a.organizationId, name: "Second", slug: "second", createdAt: new Date(T0) });
});
afterAll(() => t.close());

describe("GET /api/admin/commissions", () => {
  let ids: string[];
  beforeAll(async () => {
    const statuses: CommissionStatus[] = ["pending", "pending", "approved", "paid", "cancelled", "disputed"];
    ids = [];
    for (const [i, status] of statuses.entries()) {
      ids.push(await seedCommission(a, { status, createdAt: new Date(T0 + i * 60_000), salespersonId: i % 2 ? "sp_2" : "sp_1", salespersonName: i % 2 ? "Pat" : "Sam", orderAmountCents: 1000 * (i + 1), commissionAmountCents: 100 * (i + 1), currency: i === 5 ? "EUR" : "USD" }));
    }
    await seedCommission({ organizationId: a.organizationId, brandId: otherBrandOfA }, { createdAt: new Date(T0 + 3_600_000) });
    await seedCommission(b, { salespersonId: "sp_1", createdAt: new Date(T0 + 3_600_000) });
  });

  it("lists the brand's commissions newest first with the SPEC fields and pageSize 20", async () => {
    const res = await list();
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body.brandId).toBe(a.brandId);
    expect(body.pagination).toEqual({ page: 1, pageSize: 20, total: 6, totalPages: 1 });
    expect(body.commissions.map((c: any) => c.id)).toEqual([...ids].reverse());
    expect(body.commissions[5]).toEqual({
      id: ids[0],
      orderId: expect.any(String),
      salespersonId: "sp_1",
      salespersonName: "Sam",
      orderAmount: 1000,
      commissionAmount: 100,
      currency: "USD",
      commissionRate: 0.1,
      commissionType: "percentage",
      status: "pending",
      notes: null,
      createdAt: T0,
    });
    expect(body.commissions[0]).toMatchObject({ id: ids[5], commissionAmount: 600, currency: "EUR" });
    expect(body.report).toBeUndefined();
  });

  it("filters by status, salesperson and dates, and pages", async () => {
    expect(json(await list("status=pending")).pagination.total).toBe(2);
    expect(json(await list("salespersonId=sp_2")).commissions.map((c: any) => c.salespersonId)).toEqual(["sp_2", "sp_2", "sp_2"]);
    expect(json(await list(`startDate=${T0 + 60_000}&endDate=${T0 + 180_000}`)).pagination.total).toBe(3);
    const page = json(await list("pageSize=4&page=2"));
    expect(page.pagination).toEqual({ page: 2, pageSize: 4, total: 6, totalPages: 2 });
    expect(page.commissions.map((c: any) => c.id)).toEqual([ids[1], ids[0]]);
    expect(json(await list("pageSize=4&page=3")).commissions).toEqual([]);
    expect(json(await list("pageSize=1000")).pagination.pageSize).toBe(100);
    for (const query of ["pageSize=0", "page=0", "status=lost"]) expect((await list(query)).statusCode, query).toBe(400);
  });

  it("reports totals per status, per currency and per salesperson and currency over the filtered commissions", async () => {
    const { report } = json(await list("report=true"));
    // All currencies together (documented as meaningful with one currency only), then apart.
    expect(report.totals).toEqual({ count: 6, commissionAmount: 2100, orderAmount: 21_000 });
    expect(report.byStatus).toEqual({
      pending: { count: 2, commissionAmount: 300, orderAmount: 3000 },
      approved: { count: 1, commissionAmount: 300, orderAmount: 3000 },
      paid: { count: 1, commissionAmount: 400, orderAmount: 4000 },
      cancelled: { count: 1, commissionAmount: 500, orderAmount: 5000 },
      disputed: { count: 1, commissionAmount: 600, orderAmount: 6000 },
    });
    const none = { count: 0, commissionAmount: 0, orderAmount: 0 };
    expect(report.byCurrency).toEqual([
      {
        currency: "EUR",
        totals: { count: 1, commissionAmount: 600, orderAmount: 6000 },
        byStatus: { pending: none, approved: none, paid: none, cancelled: none, disputed: { count: 1, commissionAmount: 600, orderAmount: 6000 } },
      },
      {
        currency: "USD",
        totals: { count: 5, commissionAmount: 1500, orderAmount: 15_000 },
        byStatus: { ...report.byStatus, disputed: none },
      },
    ]);
    expect(report.bySalesperson).toEqual([
      { salespersonId: "sp_1", salespersonName: "Sam", currency: "USD", count: 3, commissionAmount: 900, orderAmount: 9000 },
      { salespersonId: "sp_2", salespersonName: "Pat", currency: "EUR", count: 1, commissionAmount: 600, orderAmount: 6000 },
      { salespersonId: "sp_2", salespersonName: "Pat", currency: "USD", count: 2, commissionAmount: 600, orderAmount: 6000 },
    ]);
    const filtered = json(await list("report=true&salespersonId=sp_2")).report;
    expect(filtered.totals.count).toBe(3);
  });

  it("lets a member read, never shows another organization's, and answers 401 without a session", async () => {
    const ofB = json(await list("", b.session));
    expect(ofB.commissions).toHaveLength(1);
    expect(ofB.brandId).toBe(b.brandId);
    const member = await registerOwner(t, { orgName: "Member org" });
    await setRole(t, member, "member");
    expect((await list("", member.session)).statusCode).toBe(200);
    const anonymous = await call(t, "GET", "/api/admin/commissions");
    expect(anonymous.statusCode).toBe(401);
    expect(json(anonymous).error).toBe("Unauthorized");
  });
});

describe("POST /api/admin/commissions", () => {
  let pending: string;
  let approved: string;
  beforeEach(async () => {
    pending = await seedCommission(a, { status: "pending" });
    approved = await seedCommission(a, { status: "approved" });
  });

  it("approves pending ones, reports the others unchanged, and audits each change with the notes", async () => {
    const res = await bulk({ action: "approve", commissionIds: [pending, approved, pending], notes: "checked by finance" });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true, updated: [pending], skipped: [{ id: approved, status: "approved", reason: "Cannot approve: commission is approved" }] });
    expect(await statusOf(pending)).toBe("approved");
    const [row] = await t.deps.database.db.select().from(commissions).where(eq(commissions.id, pending));
    expect(row.notes).toBe("checked by finance");
    const audits = await t.deps.database.db.select().from(auditLogs).where(and(eq(auditLogs.resourceId, pending), eq(auditLogs.action, "commission.approve")));
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ actorId: a.userId, organizationId: a.organizationId, brandId: a.brandId, success: true, details: { from: "pending", to: "approved", notes: "checked by finance" } });
    expect(await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.resourceId, approved))).toHaveLength(0);
  });

  it.each([
    ["cancel", ["cancelled", "cancelled"]],
    ["dispute", ["disputed", "disputed"]],
    ["markPaid", ["pending", "paid"]],
  ] as const)("%s moves per CONTRACT §13", async (action, [pendingTo, approvedTo]) => {
    const res = json(await bulk({ action, commissionIds: [pending, approved] }));
    expect(await statusOf(pending)).toBe(pendingTo);
    expect(await statusOf(approved)).toBe(approvedTo);
    expect(res.updated.length + res.skipped.length).toBe(2);
  });

  it("reports ids of another organization, another brand or nobody as not found and leaves them alone", async () => {
    const ofB = await seedCommission(b);
    const ofOtherBrand = await seedCommission({ organizationId: a.organizationId, brandId: otherBrandOfA });
    const res = json(await bulk({ action: "approve", commissionIds: [ofB, ofOtherBrand, "com_missing"] }));
    expect(res).toEqual({
      success: true,
      updated: [],
      skipped: [
        { id: ofB, status: null, reason: "Commission not found" },
        { id: ofOtherBrand, status: null, reason: "Commission not found" },
        { id: "com_missing", status: null, reason: "Commission not found" },
      ],
    });
    expect(await statusOf(ofB)).toBe("pending");
    expect(await statusOf(ofOtherBrand)).toBe("pending");
    // B's owner can act on it.
    expect(json(await bulk({ action: "approve", commissionIds: [ofB] }, b.session)).updated).toEqual([ofB]);
  });

  it("refuses bad bodies: unknown action, no ids, more than 500 ids", async () => {
    for (const body of [
      { action: "refund", commissionIds: [pending] },
      { action: "approve", commissionIds: [] },
      { action: "approve", commissionIds: Array.from({ length: 501 }, (_, i) => `com_${i}`) },
      { action: "approve" },
    ]) {
      const res = await bulk(body);
      expect(res.statusCode).toBe(400);
      expect(json(res).code).toBe("VALIDATION_ERROR");
    }
    expect(await statusOf(pending)).toBe("pending");
  });

  it("answers 401 without a session and 403 for a member", async () => {
    expect((await call(t, "POST", "/api/admin/commissions", { body: { action: "approve", commissionIds: [pending] } })).statusCode).toBe(401);
    const member = await registerOwner(t, { orgName: "Member org 2" });
    await setRole(t, member, "member");
    expect((await bulk({ action: "approve", commissionIds: [pending] }, member.session)).statusCode).toBe(403);
    expect(await statusOf(pending)).toBe("pending");
  });

  it("two concurrent bulk actions on the same commission: exactly one moves it", async () => {
    const [x, y] = await Promise.all([bulk({ action: "cancel", commissionIds: [pending] }), bulk({ action: "dispute", commissionIds: [pending] })]);
    const updated = [json(x).updated, json(y).updated].flat();
    expect(updated).toEqual([pending]);
    expect(["cancelled", "disputed"]).toContain(await statusOf(pending));
  });
});
