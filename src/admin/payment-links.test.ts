// Lasting payment links (issue 18 item 14): create, list, disable, open. Each opening mints a fresh
// short-lived token whose price comes from the stored link; disabled and expired links are 410
// pages; another brand's link is 404; members read, admins change.
import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { call, PASSWORD, uniqueEmail } from "../../test/support/identity.js";
import { addUser, registerOwner, type Registered } from "../../test/support/admin.js";
import { post } from "../../test/support/checkout.js";
import { card } from "../../test/support/provider-payments.js";
import { auditLogs, paymentLinks } from "../db/schema/index.js";

let t: TestApp;
let a: Registered;
let b: Registered;

beforeAll(async () => {
  t = await buildTestApp();
  a = await registerOwner(t, { orgName: "Links A" });
  b = await registerOwner(t, { orgName: "Links B" });
});
afterAll(() => t.close());

const body = (over: Record<string, unknown> = {}) => ({
  productName: "Espresso beans",
  description: "1 kg, medium roast",
  imageUrl: "https://cdn.example.com/beans.png",
  quantity: 2,
  price: 1250,
  currency: "eur",
  successUrl: "https://shop.example.com/thanks",
  cancelUrl: "https://shop.example.com/beans",
  ...over,
});
const create = (over: Record<string, unknown> = {}, session = a.session) => call(t, "POST", "/api/admin/payment-links", { session, body: body(over) });
const open = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: "GET", url: new URL(url).pathname, headers });
const tokenOf = (location: string) => decodeJwt(location.replace(/^\/checkout\//, ""));

describe("payment links", () => {
  it("creates a link without a salesperson, valid for a year by default, audited without its code", async () => {
    const res = await create();
    expect(res.statusCode, res.body).toBe(200);
    const { link } = json(res);
    expect(link).toMatchObject({
      url: expect.stringMatching(/^http:\/\/checkout\.test\/l\/[A-Za-z0-9_-]{22}$/),
      brandId: a.brandId,
      productName: "Espresso beans",
      quantity: 2,
      price: 1250,
      total: 2500,
      currency: "EUR",
      salespersonId: null,
      status: "active",
      expiresAt: t.clock.now() + 365 * 24 * 3600 * 1000,
    });
    const [audit] = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.resourceId, link.id));
    expect(audit).toMatchObject({ action: "checkout_link.create", actorId: a.userId, organizationId: a.organizationId, brandId: a.brandId, success: true });
    expect(JSON.stringify(audit.details)).not.toContain(link.url.split("/l/")[1]);
    // The audit page names it.
    const logs = json(await call(t, "GET", "/api/admin/audit-logs?action=checkout_link.create", { session: a.session })).logs;
    expect(logs[0]).toMatchObject({ resourceId: link.id, resourceName: "Espresso beans" });
  });

  it("each opening mints a fresh one-hour token from the stored link; the request cannot set the price", async () => {
    const { link } = json(await create());
    const first = await open(`${link.url}?amount=1&price=1&currency=USD`);
    expect(first.statusCode).toBe(302);
    expect(first.headers["cache-control"]).toBe("no-store");
    expect(first.headers["x-ratelimit-limit"]).toBeDefined();
    t.clock.advance(1000);
    const second = await open(link.url);
    expect(second.headers.location).not.toBe(first.headers.location);
    const claims = tokenOf(first.headers.location as string);
    expect(claims).toMatchObject({
      amount: 2500,
      currency: "EUR",
      productName: "Espresso beans",
      productDescription: "1 kg, medium roast",
      productImage: "https://cdn.example.com/beans.png",
      brandId: a.brandId,
      successUrl: "https://shop.example.com/thanks",
      cancelUrl: "https://shop.example.com/beans",
      lineItems: [{ id: "item-1", name: "Espresso beans", quantity: 2, unitPrice: 1250, description: "1 kg, medium roast" }],
      metadata: { paymentLinkId: link.id },
    });
    expect(claims.salesAttribution).toBeUndefined();
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(tokenOf(second.headers.location as string).orderId).not.toBe(claims.orderId);
  });

  it("a token from a link pays like any checkout, at the stored price", async () => {
    const { link } = json(await create({ quantity: 1, price: 990, currency: "usd" }));
    const token = ((await open(link.url)).headers.location as string).replace("/checkout/", "");
    const { orderId } = decodeJwt(token) as { orderId: string };
    const provider = "vault_gateway_a";
    expect((await post(t, "/api/checkout/initialize", { token, provider })).statusCode).toBe(200);
    const paid = json(await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: 990, currency: "USD", ...card() }));
    const done = await post(t, "/api/checkout/complete", { orderId, transactionId: paid.transactionId, provider, customerEmail: "ada@example.com", customerName: "Ada", amount: 990, currency: "USD" });
    expect(done.statusCode, done.body).toBe(200);
    const orders = json(await call(t, "GET", "/api/admin/orders", { session: a.session })).orders;
    expect(orders.find((o: any) => o.orderId === orderId)).toMatchObject({ amount: 990, currency: "USD" });
  });

  it("lists each link with its sales count: completed checkouts opened from it, not openings (issue 36 item 14)", async () => {
    const { link } = json(await create({ productName: "Counted tea", quantity: 1, price: 700, currency: "usd" }));
    const { link: other } = json(await create({ productName: "Unsold tea" }));
    const salesCount = async (id: string) => (json(await call(t, "GET", "/api/admin/payment-links", { session: a.session })).links as any[]).find((l) => l.id === id).salesCount;
    expect(await salesCount(link.id)).toBe(0);
    async function sell() {
      const token = ((await open(link.url)).headers.location as string).replace("/checkout/", "");
      const { orderId } = decodeJwt(token) as { orderId: string };
      expect((await post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_a" })).statusCode).toBe(200);
      const paid = json(await post(t, "/api/providers/vault_gateway_a/process-payment", { orderId, amount: 700, currency: "USD", ...card() }));
      const done = await post(t, "/api/checkout/complete", { orderId, transactionId: paid.transactionId, provider: "vault_gateway_a", customerEmail: "ada@example.com", customerName: "Ada", amount: 700, currency: "USD" });
      expect(done.statusCode, done.body).toBe(200);
    }
    await sell();
    await open(link.url); // opened, never paid: no sale
    await sell();
    expect(await salesCount(link.id)).toBe(2);
    expect(await salesCount(other.id)).toBe(0);
  });

  it("credits a salesperson of the organization when one is chosen; another organization's is 404", async () => {
    const seller = json(await call(t, "POST", "/api/admin/salespeople", { session: a.session, body: { name: "Sam Seller", email: uniqueEmail("sam"), password: PASSWORD, commissionRate: 0.1 } })).salesperson;
    const { link } = json(await create({ salespersonId: seller.id }));
    expect(link).toMatchObject({ salespersonId: seller.id, salespersonName: "Sam Seller", commissionRate: 0.1 });
    expect(tokenOf((await open(link.url)).headers.location as string).salesAttribution).toEqual({ salespersonId: seller.id, salespersonName: "Sam Seller", commissionRate: 0.1 });
    const sellerOfB = json(await call(t, "POST", "/api/admin/salespeople", { session: b.session, body: { name: "Other", email: uniqueEmail("o"), password: PASSWORD } })).salesperson;
    const res = await create({ salespersonId: sellerOfB.id });
    expect(res.statusCode).toBe(404);
    expect(json(res).error).toBe("Salesperson not found");
  });

  it("disabled and expired links answer a 410 page; unknown codes a 404 page", async () => {
    const { link } = json(await create());
    const disabled = await call(t, "POST", `/api/admin/payment-links/${link.id}/disable`, { session: a.session });
    expect(disabled.statusCode).toBe(200);
    expect(json(disabled).link).toMatchObject({ status: "disabled", disabledAt: t.clock.now() });
    const gone = await open(link.url, { accept: "text/html" });
    expect(gone.statusCode).toBe(410);
    expect(gone.headers["content-type"]).toContain("text/html");
    expect(gone.body).toContain("This link is no longer available");
    // Disabling again changes nothing and is audited once.
    expect((await call(t, "POST", `/api/admin/payment-links/${link.id}/disable`, { session: a.session })).statusCode).toBe(200);
    expect(await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.resourceId, link.id))).toHaveLength(2);

    const short = json(await create({ expiresAt: t.clock.now() + 60_000 })).link;
    expect((await open(short.url)).statusCode).toBe(302);
    t.clock.advance(60_000);
    expect((await open(short.url)).statusCode).toBe(410);
    expect(json(await call(t, "GET", "/api/admin/payment-links", { session: a.session })).links.find((l: any) => l.id === short.id).status).toBe("expired");

    const unknown = await t.app.inject({ method: "GET", url: "/l/AAAAAAAAAAAAAAAAAAAAAA" });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain("Link not found");
  });

  it("refuses bad redirect targets, a past or too distant expiry and a rate without salesperson", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ successUrl: "javascript:alert(1)" }, "successUrl"],
      [{ cancelUrl: "https://user:pw@shop.example.com/" }, "cancelUrl"],
      [{ imageUrl: "//cdn.example.com/x.png" }, "imageUrl"],
      [{ expiresAt: t.clock.now() - 1 }, "expiresAt"],
      [{ expiresAt: t.clock.now() + 366 * 24 * 3600 * 1000 }, "expiresAt"],
      [{ commissionRate: 0.2 }, "commissionRate"],
      [{ quantity: 0 }, "quantity"],
      [{ price: 0 }, "price"],
      [{ currency: "euro" }, "currency"],
    ];
    for (const [over, field] of cases) {
      const res = await create(over);
      expect(res.statusCode, JSON.stringify(over)).toBe(400);
      expect(json(res), JSON.stringify(over)).toMatchObject({ code: "VALIDATION_ERROR", details: field });
    }
  });

  it("tenancy: another brand's link is 404 to disable and absent from the list", async () => {
    const { link } = json(await create());
    const res = await call(t, "POST", `/api/admin/payment-links/${link.id}/disable`, { session: b.session });
    expect(res.statusCode).toBe(404);
    expect(json(res).error).toBe("Payment link not found");
    expect(json(await call(t, "GET", "/api/admin/payment-links", { session: b.session })).links).toEqual([]);
    const [row] = await t.deps.database.db.select().from(paymentLinks).where(eq(paymentLinks.id, link.id));
    expect(row.disabledAt).toBeNull();
    // A second brand of A does not see the first brand's links either.
    const brand = json(await call(t, "POST", "/api/admin/brands", { session: a.session, body: { name: "Second brand" } }));
    const switched = await call(t, "POST", "/api/admin/auth/switch-brand", { session: a.session, body: { brandId: brand.id } });
    const session = switched.cookies.find((c) => c.name === "admin_session")!.value;
    expect(json(await call(t, "GET", "/api/admin/payment-links", { session })).links).toEqual([]);
    expect((await call(t, "POST", `/api/admin/payment-links/${link.id}/disable`, { session })).statusCode).toBe(404);
    // Back to the first brand (switching rotates the session id).
    const back = await call(t, "POST", "/api/admin/auth/switch-brand", { session, body: { brandId: a.brandId } });
    a = { ...a, session: back.cookies.find((c) => c.name === "admin_session")!.value };
  });

  it("roles: members read, only admins and owners create and disable; 401 without a session", async () => {
    const { link } = json(await create());
    const member = await addUser(t, a.session, "member", [a.brandId]);
    const listed = await call(t, "GET", "/api/admin/payment-links", { session: member.session });
    expect(listed.statusCode).toBe(200);
    expect(json(listed).links.map((l: any) => l.id)).toContain(link.id);
    expect((await create({}, member.session)).statusCode).toBe(403);
    expect((await call(t, "POST", `/api/admin/payment-links/${link.id}/disable`, { session: member.session })).statusCode).toBe(403);
    const admin = await addUser(t, a.session, "admin");
    expect((await create({}, admin.session)).statusCode).toBe(200);
    expect((await call(t, "GET", "/api/admin/payment-links")).statusCode).toBe(401);
    expect((await call(t, "POST", "/api/admin/payment-links", { body: body() })).statusCode).toBe(401);
  });
});
