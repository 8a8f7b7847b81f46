// Issue 17: the buyer's receipts, as received by a real SMTP server — after completion (items, total,
// the brand's name, logo, colour and support address), after each accepted upsell, after a refund;
// each exactly once whichever process runs the job; none for a brand that switched them off.
// Issue 33: those are live orders (the shop pays through a real gateway, faked at the network); a
// test order's receipt reaches only the brand's team, marked TEST, never the buyer.
import { eq } from "drizzle-orm";
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCall, addUser, registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { post } from "../../test/support/checkout.js";
import { completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { auditActions, uniqueEmail } from "../../test/support/identity.js";
import { startSmtpServer, type TestSmtp } from "../../test/support/smtp.js";
import { createApiKey, withKey } from "../../test/support/merchant.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../providers/vault-gateway-a/fake-server.js";
import { brands, mailOutbox } from "../db/schema/index.js";
import { queueReceipts } from "./receipts.js";

let smtp: TestSmtp;
let t: TestApp;
let shop: Registered;
let brandName: string;
let gateway: FakeVaultGateway;
let liveKey: string;
beforeAll(async () => {
  [smtp, gateway] = await Promise.all([startSmtpServer(), startFakeVaultGateway()]);
  t = await buildTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: "Checkout <receipts@checkout.test>", ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
  shop = await registerOwner(t);
  // Live money: the shop's vault_gateway_b has real credentials, so its checkouts (tokens without a mode) are live.
  const configured = await adminCall(t, "POST", "/api/admin/settings", { session: shop.session, body: { provider: "vault_gateway_b", settings: { securityKey: gateway.securityKey, baseUrl: gateway.baseUrl } } });
  expect(configured.statusCode, configured.body).toBe(200);
  liveKey = (await createApiKey(t, shop.session, { mode: "live" })).secret;
  brandName = (await t.deps.database.db.select({ name: brands.name }).from(brands).where(eq(brands.id, shop.brandId)))[0]!.name;
  expect((await adminCall(t, "PUT", "/api/admin/branding", { session: shop.session, body: { logoUrl: "https://cdn.example.com/logo.png", color: "#0a7d44" } })).statusCode).toBe(200);
  expect((await adminCall(t, "PUT", "/api/admin/receipt-settings", { session: shop.session, body: { supportEmail: "help@shop.example" } })).statusCode).toBe(200);
});
afterAll(async () => {
  await t.close();
  await smtp.close();
  await gateway.close();
});

/** Runs the receipts job (it wakes the mail job) and reads the `count` mails `email` then holds. */
async function receiptsFor(email: string, count = 1): Promise<ParsedMail[]> {
  await t.app.jobs.trigger("receipts");
  return Promise.all((await smtp.mailFor(email, count)).map((m) => simpleParser(m.data)));
}
const addressOf = (field: AddressObject | AddressObject[] | undefined) => (Array.isArray(field) ? field[0] : field)?.value[0];

async function paidOrder(brandId: string, email: string, name = "Ada Lovelace") {
  return completeCheckoutViaApi(t, {
    claims: { brandId },
    complete: { customerEmail: email, customerName: name, lineItems: [{ id: "kit", name: "Espresso <kit>", quantity: 2, unitPrice: 500 }] },
  });
}

describe("receipts", () => {
  it("mails the buyer a receipt of the order in the brand's name, once", async () => {
    const email = uniqueEmail("buyer");
    const order = await paidOrder(shop.brandId, email, "Ada <b>Lovelace</b>");
    const [mail] = await receiptsFor(email);
    expect(addressOf(mail!.from)).toEqual({ name: brandName, address: "receipts@checkout.test" });
    expect(addressOf(mail!.replyTo)?.address).toBe("help@shop.example");
    expect(mail!.subject).toBe(`Your receipt for order ${order.orderId} – ${brandName}`);
    expect(mail!.text).toContain(`Order: ${order.orderId}`);
    expect(mail!.text).toContain("2 × Espresso <kit>  $10.00");
    expect(mail!.text).toContain("Total: $10.00");
    expect(mail!.text).toContain("help@shop.example");
    const html = mail!.html as string;
    expect(html).toContain('<img src="https://cdn.example.com/logo.png"');
    expect(html).toContain("#0a7d44");
    expect(html).toContain("Espresso &#60;kit&#62;");
    expect(html).toContain("Ada &#60;b&#62;Lovelace&#60;/b&#62;");
    expect(html).not.toContain("<b>Lovelace");

    await t.app.jobs.trigger("receipts");
    await t.app.jobs.trigger("mail");
    expect(smtp.received.filter((m) => m.to.includes(email))).toHaveLength(1);
  });

  it("queues each receipt once when passes run at the same time (as in two processes)", async () => {
    const emails = [uniqueEmail("a"), uniqueEmail("b"), uniqueEmail("c")];
    for (const email of emails) await paidOrder(shop.brandId, email);
    const passes = await Promise.all([queueReceipts(t.deps.database.db, t.clock.now()), queueReceipts(t.deps.database.db, t.clock.now())]);
    expect(passes[0]!.queued + passes[1]!.queued).toBe(3);
    for (const email of emails) expect(await t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, email))).toHaveLength(1);
  });

  it("mails a receipt for each accepted upsell charge and a notice for each refund", async () => {
    const email = uniqueEmail("upsell");
    const order = await paidOrder(shop.brandId, email);
    // A live order's upsell needs the merchant's live key (CONTRACT §35).
    const session = await withKey(t, "POST", "/api/upsell/create-session", liveKey, {
      orderId: `${order.orderId}-up`,
      originalOrderId: order.orderId,
      customerEmail: email,
      paymentMethodToken: order.paymentMethodToken,
      provider: order.provider,
      offers: [{ id: "beans", name: "Two bags of beans", price: 1800 }],
    });
    expect(session.statusCode, session.body).toBe(200);
    expect((await post(t, "/api/upsell/accept", { sessionId: json(session).sessionId, offerId: "beans" })).statusCode).toBe(200);
    // Both receipts are queued in one pass, at one instant: they may go out in either order.
    const upsell = (await receiptsFor(email, 2)).find((mail) => mail.subject === `Your receipt for order ${order.orderId}-up – ${brandName}`);
    expect(upsell!.text).toContain(`Thank you for adding to order ${order.orderId}`);
    expect(upsell!.text).toContain("1 × Two bags of beans  $18.00");

    gateway.settle(order.transactionId); // the gateway refunds settled sales (its nightly settlement)
    const listed = json(await adminCall(t, "GET", `/api/admin/orders?q=${order.orderId}`, { session: shop.session }));
    const refund = await adminCall(t, "POST", `/api/admin/orders/${listed.orders[0].id}/refunds`, { session: shop.session, body: { amount: 250, reason: "requested_by_customer" } });
    expect(refund.statusCode, refund.body).toBe(200);
    const [, , notice] = await receiptsFor(email, 3);
    expect(notice!.subject).toBe(`Refund for order ${order.orderId} – ${brandName}`);
    expect(notice!.text).toContain(`We have refunded $2.50 for order ${order.orderId}`);
    expect(notice!.text).toContain("Refunded: $2.50");
  });

  it("sends none for a brand that switched receipts off, and the switch is the admin's", async () => {
    const other = await registerOwner(t);
    expect(json(await adminCall(t, "GET", "/api/admin/receipt-settings", { session: other.session }))).toEqual({ enabled: true, supportEmail: null });
    const member = await addUser(t, other.session, "member", [other.brandId]);
    expect((await adminCall(t, "PUT", "/api/admin/receipt-settings", { session: member.session, body: { enabled: false } })).statusCode).toBe(403);
    const bad = await adminCall(t, "PUT", "/api/admin/receipt-settings", { session: other.session, body: { supportEmail: "not an address" } });
    expect(bad.statusCode).toBe(400);
    expect(json(bad)).toMatchObject({ code: "VALIDATION_ERROR", details: "supportEmail" });
    const off = await adminCall(t, "PUT", "/api/admin/receipt-settings", { session: other.session, body: { enabled: false } });
    expect(json(off)).toEqual({ success: true, enabled: false, supportEmail: null });
    expect((await auditActions(t, other.userId)).map((a) => a.action)).toContain("brand.receipts_update");

    const email = uniqueEmail("silent");
    const sent = uniqueEmail("sent");
    await paidOrder(other.brandId, email);
    await paidOrder(shop.brandId, sent); // a mail that is sent proves the job ran past the silent one
    await receiptsFor(sent);
    expect(await t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, email))).toHaveLength(0);
  });

  it("sends a test order's receipt only to the brand's team, marked TEST, never to the buyer (also on a brand with real credentials)", async () => {
    const admin = await addUser(t, shop.session, "admin", [shop.brandId]);
    const member = await addUser(t, shop.session, "member", [shop.brandId]);
    const buyer = uniqueEmail("test-buyer");
    // A test-mode token on the live shop: paid in demo, and so is its receipt.
    const order = await completeCheckoutViaApi(t, { claims: { brandId: shop.brandId, livemode: false }, complete: { customerEmail: buyer, customerName: "Ada Lovelace" } });
    const [toOwner] = await receiptsFor(shop.email);
    expect(toOwner!.subject).toBe(`[TEST] Your receipt for order ${order.orderId} – ${brandName}`);
    expect(toOwner!.text).toMatch(/^TEST: this receipt is of a test order; no real money moved\./);
    expect(toOwner!.text).toContain(`not to the buyer (${buyer})`);
    expect(toOwner!.html as string).toContain("TEST: this receipt is of a test order");
    const [toAdmin] = await receiptsFor(admin.email);
    expect(toAdmin!.subject).toBe(`[TEST] Your receipt for order ${order.orderId} – ${brandName}`);
    await t.app.jobs.trigger("mail");
    expect(smtp.received.filter((m) => m.to.includes(buyer))).toHaveLength(0);
    expect(await t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, buyer))).toHaveLength(0);
    // A member is not the team that administers the brand.
    expect(await t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.to, member.email))).toHaveLength(0);
  });
});
