// POST /api/admin/tools/generate-link: a signed, attributed checkout token of the session's brand
// with its short link; completing that checkout creates a commission the commissions list shows.
import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { call, PASSWORD, uniqueEmail } from "../../test/support/identity.js";
import { sha256 } from "../lib/crypto.js";
import { registerOwner, setRole, type Registered } from "../../test/support/admin.js";
import { post } from "../../test/support/checkout.js";
import { AMOUNT, card } from "../../test/support/provider-payments.js";
import { auditLogs, sessions, shortLinks } from "../db/schema/index.js";

let t: TestApp;
let a: Registered;
let b: Registered;
let seller: { id: string; name: string };
let sellerOfB: { id: string };

async function newSalesperson(owner: Registered, commissionRate?: number) {
  const res = await call(t, "POST", "/api/admin/salespeople", { session: owner.session, body: { name: "Sam Seller", email: uniqueEmail("seller"), password: PASSWORD, commissionRate } });
  return json(res).salesperson;
}
const generate = (body: unknown, session = a.session) => call(t, "POST", "/api/admin/tools/generate-link", { body, session });
const linkBody = (over: Record<string, unknown> = {}) => ({
  salespersonId: seller.id,
  salespersonName: "Sam S.",
  commissionRate: 0.15,
  orderInfo: { productName: "Coaching call", total: AMOUNT, currency: "usd" },
  ...over,
});

beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, { orgName: "Org A" });
  b = await registerOwner(t, { orgName: "Org B" });
  seller = await newSalesperson(a, 0.1);
  sellerOfB = await newSalesperson(b);
});
afterAll(() => t.close());

describe("POST /api/admin/tools/generate-link", () => {
  it("signs a one-hour token of the session's brand with salesAttribution, stores the short link, audits", async () => {
    const res = await generate(linkBody());
    expect(res.statusCode).toBe(200);
    const body = json(res);
    expect(body).toMatchObject({ success: true, checkoutUrl: `http://checkout.test/c/${body.code}`, orderId: expect.stringMatching(/^link_/) });
    const claims = decodeJwt(body.token);
    expect(claims).toMatchObject({
      orderId: body.orderId,
      amount: AMOUNT,
      currency: "USD",
      productName: "Coaching call",
      brandId: a.brandId,
      salesAttribution: { salespersonId: seller.id, salespersonName: "Sam S.", commissionRate: 0.15 },
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    const [link] = await t.deps.database.db.select().from(shortLinks).where(eq(shortLinks.code, body.code));
    expect(link).toMatchObject({ token: body.token, brandId: a.brandId });
    const redirect = await t.app.inject({ method: "GET", url: `/c/${body.code}` });
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe(`/checkout/${body.token}`);
    const [audit] = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.resourceId, body.orderId));
    expect(audit).toMatchObject({ action: "checkout_link.generate", actorId: a.userId, organizationId: a.organizationId, brandId: a.brandId, success: true });
    expect(JSON.stringify(audit.details)).not.toContain(body.token);
    expect(JSON.stringify(audit.details)).not.toContain(body.code);
  });

  it("takes the salesperson's name and rate when the body has none", async () => {
    const body = json(await generate({ salespersonId: seller.id, orderInfo: { productName: "P", total: 500, currency: "EUR" } }));
    expect(decodeJwt(body.token).salesAttribution).toEqual({ salespersonId: seller.id, salespersonName: "Sam Seller", commissionRate: 0.1 });
  });

  it("completing the linked checkout creates a commission the commissions list shows, in the order's currency", async () => {
    const link = json(await generate(linkBody({ orderInfo: { productName: "Coaching call", total: AMOUNT, currency: "eur" } })));
    const provider = "vault_gateway_a";
    expect((await post(t, "/api/checkout/initialize", { token: link.token, provider })).statusCode).toBe(200);
    const paid = json(await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId: link.orderId, amount: AMOUNT, currency: "EUR", ...card() }));
    const done = await post(t, "/api/checkout/complete", { orderId: link.orderId, transactionId: paid.transactionId, provider, customerEmail: "ada@example.com", customerName: "Ada", amount: AMOUNT, currency: "EUR" });
    expect(done.statusCode, done.body).toBe(200);
    const commissionId = json(done).commissionId;
    expect(commissionId).toBeDefined();
    const listed = json(await call(t, "GET", `/api/admin/commissions?salespersonId=${seller.id}`, { session: a.session })).commissions;
    expect(listed.find((c: any) => c.id === commissionId)).toMatchObject({
      orderId: link.orderId,
      salespersonId: seller.id,
      salespersonName: "Sam S.",
      orderAmount: AMOUNT,
      commissionAmount: 150,
      currency: "EUR",
      commissionRate: 0.15,
      status: "pending",
    });
    // Organization B never sees it.
    expect(json(await call(t, "GET", "/api/admin/commissions", { session: b.session })).commissions).toEqual([]);
  });

  it("answers 404 for another organization's salesperson or an unknown one", async () => {
    for (const salespersonId of [sellerOfB.id, "sp_unknown"]) {
      const res = await generate(linkBody({ salespersonId }));
      expect(res.statusCode).toBe(404);
      expect(json(res)).toMatchObject({ error: "Salesperson not found", code: "NOT_FOUND" });
    }
  });

  it("validates the body", async () => {
    for (const body of [
      linkBody({ commissionRate: 2 }),
      linkBody({ orderInfo: { productName: "P", total: 0, currency: "USD" } }),
      linkBody({ orderInfo: { productName: "P", total: 100, currency: "dollars" } }),
      linkBody({ orderInfo: undefined }),
      { orderInfo: { productName: "P", total: 100, currency: "USD" } },
    ]) {
      const res = await generate(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(json(res).code).toBe("VALIDATION_ERROR");
    }
  });

  it("answers 400 No brand selected for a session without a brand", async () => {
    const owner = await registerOwner(t, { orgName: "Brandless" });
    const sp = await newSalesperson(owner);
    await t.deps.database.db.update(sessions).set({ brandId: null }).where(eq(sessions.idHash, sha256(owner.session)));
    const res = await generate(linkBody({ salespersonId: sp.id }), owner.session);
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ error: "No brand selected", code: "NO_BRAND" });
  });

  it("answers 401 without a session and 403 for a member", async () => {
    expect((await call(t, "POST", "/api/admin/tools/generate-link", { body: linkBody() })).statusCode).toBe(401);
    const member = await registerOwner(t, { orgName: "Member org" });
    await setRole(t, member, "member");
    expect((await generate(linkBody(), member.session)).statusCode).toBe(403);
  });
});

describe("POST /api/admin/tools/generate-link in live mode", () => {
  it("works while /api/token/generate is off", async () => {
    const live = await buildTestApp({ env: { PAYMENT_MODE: "live" } });
    try {
      const owner = await registerOwner(live);
      const sp = json(await call(live, "POST", "/api/admin/salespeople", { session: owner.session, body: { name: "L", email: uniqueEmail(), password: PASSWORD } })).salesperson;
      const res = await call(live, "POST", "/api/admin/tools/generate-link", { session: owner.session, body: { salespersonId: sp.id, orderInfo: { productName: "P", total: 100, currency: "USD" } } });
      expect(res.statusCode).toBe(200);
      expect((await post(live, "/api/token/generate", {})).statusCode).toBe(404);
    } finally {
      await live.close();
    }
  });
});
