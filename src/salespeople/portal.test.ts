// The salesperson portal (CONTRACT §12, §32): its own cookie and sessions, the sums of the
// salesperson's commissions, its own brute-force limit, audit, and no rights under /api/admin.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, errorOf, json, type TestApp } from "../../test/support/app.js";
import { call, cookieOf, ORIGIN, PASSWORD, sessionOf, uniqueEmail } from "../../test/support/identity.js";
import { registerOwner, type Registered } from "../../test/support/admin.js";
import { auditLogs, commissions, salespersonSessions, type CommissionStatus } from "../db/schema/index.js";
import { sha256 } from "../lib/crypto.js";
import { newId } from "../lib/ids.js";
import { SALESPERSON_COOKIE } from "./portal.js";

let t: TestApp;
let a: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, { orgName: "Org A" });
});
afterAll(() => t.close());

async function newSalesperson(owner: Registered = a, email = uniqueEmail("seller")) {
  const res = await call(t, "POST", "/api/admin/salespeople", { session: owner.session, body: { name: "Sam Seller", email, password: PASSWORD } });
  expect(res.statusCode, res.body).toBe(200);
  return { ...json(res).salesperson, email } as { id: string; name: string; email: string };
}

const portal = (method: "GET" | "POST" | "DELETE", options: { body?: unknown; cookie?: string; headers?: Record<string, string> } = {}) =>
  t.app.inject({
    method,
    url: "/api/salesperson/auth",
    cookies: options.cookie ? { [SALESPERSON_COOKIE]: options.cookie } : {},
    headers: { origin: ORIGIN, ...(options.body !== undefined ? { "content-type": "application/json" } : {}), ...options.headers },
    payload: options.body === undefined ? undefined : JSON.stringify(options.body),
  });

async function login(email: string, password = PASSWORD) {
  const res = await portal("POST", { body: { email, password } });
  return { res, cookie: cookieOf(res, SALESPERSON_COOKIE) };
}

async function seedCommission(salespersonId: string, status: CommissionStatus, amount: number, organizationId = a.organizationId, currency = "USD") {
  const at = new Date(t.clock.now());
  const orderId = newId("o");
  await t.deps.database.db.insert(commissions).values({
    id: newId("com"),
    organizationId,
    brandId: a.brandId,
    orderRef: newId("ord"),
    orderId,
    salespersonId,
    orderAmountCents: amount * 10,
    commissionAmountCents: amount,
    currency,
    commissionRate: 0.1,
    commissionType: "percentage",
    status,
    createdAt: at,
    updatedAt: at,
  });
  return { orderId, createdAt: at.getTime() };
}

describe("POST /api/salesperson/auth", () => {
  it("logs in with its own httpOnly SameSite=Lax cookie, a hashed session row and an audit record", async () => {
    const sp = await newSalesperson();
    const { res, cookie } = await login(sp.email.toUpperCase());
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true, salesperson: { id: sp.id, name: sp.name, email: sp.email } });
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" });
    expect(cookie!.secure).toBeFalsy();
    expect(cookieOf(res, "admin_session")).toBeUndefined();
    const [row] = await t.deps.database.db.select().from(salespersonSessions).where(eq(salespersonSessions.idHash, sha256(cookie!.value)));
    expect(row.salespersonId).toBe(sp.id);
    const audits = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.resourceId, sp.id));
    expect(audits.find((r) => r.action === "salesperson.login")).toMatchObject({ success: true, actorId: sp.id, organizationId: a.organizationId });
  });

  it("answers the same 401 for a wrong password and an unknown email, both audited as failures", async () => {
    const sp = await newSalesperson();
    const wrong = await login(sp.email, "wrong password!!");
    const unknown = await login(uniqueEmail("nobody"));
    expect(wrong.res.statusCode).toBe(401);
    expect(errorOf(wrong.res)).toEqual(errorOf(unknown.res));
    expect(json(wrong.res)).toMatchObject({ error: "Invalid email or password", code: "INVALID_CREDENTIALS" });
    expect(wrong.cookie).toBeUndefined();
    const failed = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.resourceId, sp.id));
    expect(failed.find((r) => r.action === "salesperson.login")).toMatchObject({ success: false, details: { reason: "invalid_credentials" } });
    expect((await portal("POST", { body: { email: "", password: "" } })).statusCode).toBe(401);
    expect((await portal("POST", { body: { email: sp.email } })).statusCode).toBe(400);
  });

  it("signs in to the account whose password matches when two organizations share an email", async () => {
    const email = uniqueEmail("shared");
    const first = await newSalesperson(a, email);
    const other = await registerOwner(t, { orgName: "Org C" });
    const res = await call(t, "POST", "/api/admin/salespeople", { session: other.session, body: { name: "Other", email, password: "another long passphrase" } });
    const second = json(res).salesperson;
    expect(json((await login(email)).res).salesperson.id).toBe(first.id);
    expect(json((await login(email, "another long passphrase")).res).salesperson.id).toBe(second.id);
  });

  it("refuses further attempts with 429 after 10 failures in 15 minutes, even the right password, until the window passes", async () => {
    const sp = await newSalesperson();
    for (let i = 0; i < 10; i++) expect((await login(sp.email, `wrong password ${i}`)).res.statusCode).toBe(401);
    const locked = await login(sp.email);
    expect(locked.res.statusCode).toBe(429);
    expect(json(locked.res)).toMatchObject({ code: "TOO_MANY_LOGIN_ATTEMPTS" });
    expect(locked.cookie).toBeUndefined();
    t.clock.advance(15 * 60_000 + 1);
    expect((await login(sp.email)).res.statusCode).toBe(200);
  });
});

describe("GET and DELETE /api/salesperson/auth", () => {
  it("answers the salesperson and the sums of their own commissions in cents", async () => {
    const sp = await newSalesperson();
    const other = await newSalesperson();
    await seedCommission(sp.id, "pending", 100);
    await seedCommission(sp.id, "pending", 50);
    await seedCommission(sp.id, "approved", 200);
    await seedCommission(sp.id, "paid", 400);
    await seedCommission(sp.id, "cancelled", 800);
    await seedCommission(other.id, "paid", 1600);
    const { cookie } = await login(sp.email);
    const res = await portal("GET", { cookie: cookie!.value });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({
      authenticated: true,
      livemode: false,
      salesperson: { id: sp.id, name: sp.name, email: sp.email },
      commissions: {
        total: 1550,
        pending: 150,
        approved: 200,
        paid: 400,
        count: 5,
        clawedBack: 0,
        clawbackOpen: 0,
        byCurrency: [{ currency: "USD", total: 1550, pending: 150, approved: 200, paid: 400, count: 5, clawedBack: 0, clawbackOpen: 0 }],
        clawbacks: [],
      },
      sales: expect.any(Array),
    });
    const none = await login(other.email);
    expect(json(await portal("GET", { cookie: none.cookie!.value })).commissions).toEqual({
      total: 1600,
      pending: 0,
      approved: 0,
      paid: 1600,
      count: 1,
      clawedBack: 0,
      clawbackOpen: 0,
      byCurrency: [{ currency: "USD", total: 1600, pending: 0, approved: 0, paid: 1600, count: 1, clawedBack: 0, clawbackOpen: 0 }],
      clawbacks: [],
    });
  });

  it("lists the salesperson's own sales of the mode: date, order, amount, commission, status (issue 36 item 14)", async () => {
    const sp = await newSalesperson();
    const other = await newSalesperson();
    const first = await seedCommission(sp.id, "pending", 120, a.organizationId, "USD");
    const second = await seedCommission(sp.id, "paid", 300, a.organizationId, "EUR");
    await seedCommission(other.id, "paid", 999);
    const { cookie } = await login(sp.email);
    const { sales } = json(await portal("GET", { cookie: cookie!.value }));
    expect([...sales].sort((x: { orderId: string }, y: { orderId: string }) => (x.orderId === first.orderId ? -1 : y.orderId === first.orderId ? 1 : 0))).toEqual([
      { orderId: first.orderId, createdAt: first.createdAt, orderAmount: 1200, commissionAmount: 120, currency: "USD", status: "pending" },
      { orderId: second.orderId, createdAt: second.createdAt, orderAmount: 3000, commissionAmount: 300, currency: "EUR", status: "paid" },
    ]);
    // One mode at a time: these are test sales, so the live view lists none.
    const live = await t.app.inject({ method: "GET", url: "/api/salesperson/auth?livemode=true", cookies: { [SALESPERSON_COOKIE]: cookie!.value }, headers: { origin: ORIGIN } });
    expect(live.statusCode).toBe(200);
    expect(json(live).sales).toEqual([]);
  });

  it("sums each currency apart: commissions in USD and EUR are never added into one amount of money", async () => {
    const sp = await newSalesperson();
    await seedCommission(sp.id, "pending", 100, a.organizationId, "USD");
    await seedCommission(sp.id, "paid", 300, a.organizationId, "USD");
    await seedCommission(sp.id, "pending", 1000, a.organizationId, "EUR");
    await seedCommission(sp.id, "approved", 2000, a.organizationId, "EUR");
    const { cookie } = await login(sp.email);
    const { commissions: totals } = json(await portal("GET", { cookie: cookie!.value }));
    expect(totals.byCurrency).toEqual([
      { currency: "EUR", total: 3000, pending: 1000, approved: 2000, paid: 0, count: 2, clawedBack: 0, clawbackOpen: 0 },
      { currency: "USD", total: 400, pending: 100, approved: 0, paid: 300, count: 2, clawedBack: 0, clawbackOpen: 0 },
    ]);
    // CONTRACT §32's members stay, over every commission (docs/admin.md says what they mean then).
    expect(totals).toMatchObject({ total: 3400, pending: 1100, approved: 2000, paid: 300, count: 4 });
  });

  it("answers 401 { error: Unauthorized, authenticated: false } without, with a bad or an idle session", async () => {
    for (const cookie of [undefined, "not-a-session", "x".repeat(200)]) {
      const res = await portal("GET", { cookie });
      expect(res.statusCode).toBe(401);
      expect(json(res)).toMatchObject({ error: "Unauthorized", code: "UNAUTHORIZED", authenticated: false });
    }
    const sp = await newSalesperson();
    const { cookie } = await login(sp.email);
    t.clock.advance(31 * 60_000);
    expect((await portal("GET", { cookie: cookie!.value })).statusCode).toBe(401);
    expect(await t.deps.database.db.select().from(salespersonSessions).where(eq(salespersonSessions.idHash, sha256(cookie!.value)))).toHaveLength(0);
    // The owner's administration session went idle too: sign in again for the next tests.
    a.session = sessionOf(await call(t, "POST", "/api/admin/auth", { body: { email: a.email, password: PASSWORD } }));
  });

  it("logs out: the session ends, the cookie is cleared, the logout is audited", async () => {
    const sp = await newSalesperson();
    const { cookie } = await login(sp.email);
    const res = await portal("DELETE", { cookie: cookie!.value });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true });
    expect(cookieOf(res, SALESPERSON_COOKIE)?.value).toBe("");
    expect((await portal("GET", { cookie: cookie!.value })).statusCode).toBe(401);
    const audits = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.resourceId, sp.id));
    expect(audits.some((r) => r.action === "salesperson.logout")).toBe(true);
    // Without a session it still answers success.
    expect((await portal("DELETE")).statusCode).toBe(200);
  });

  it("the salesperson cookie grants nothing under /api/admin", async () => {
    const sp = await newSalesperson();
    const { cookie } = await login(sp.email);
    for (const [method, url] of [
      ["GET", "/api/admin/auth"],
      ["GET", "/api/admin/commissions"],
      ["GET", "/api/admin/salespeople"],
      ["GET", "/api/admin/audit-logs"],
      ["POST", "/api/admin/commissions"],
    ] as const) {
      const res = await t.app.inject({
        method,
        url,
        cookies: { [SALESPERSON_COOKIE]: cookie!.value },
        headers: { origin: ORIGIN, "content-type": "application/json" },
        payload: method === "POST" ? JSON.stringify({ action: "approve", commissionIds: ["x"] }) : undefined,
      });
      expect(res.statusCode, url).toBe(401);
    }
    // Nor does it work as the administration cookie.
    expect((await call(t, "GET", "/api/admin/commissions", { session: cookie!.value })).statusCode).toBe(401);
  });
});
