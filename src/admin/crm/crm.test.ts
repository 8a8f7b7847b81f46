// POST /api/admin/test-crm and POST /api/admin/crm-retry (issue 5 "Utilities"): roles, tenancy,
// the demo connectivity answer, and an idempotent retry that reuses completion's CRM recording.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { paidCheckoutViaApi } from "../../../test/support/completed-checkout.js";
import { call, registerUser } from "../../../test/support/identity.js";
import { address, post } from "../../../test/support/provider-payments.js";
import { auditLogs, demoProviderRecords, memberships, orders, sessions } from "../../db/schema/index.js";
import { sha256 } from "../../lib/crypto.js";

let t: TestApp;
let owner: Awaited<ReturnType<typeof registerUser>>;
let other: Awaited<ReturnType<typeof registerUser>>;
let brandId: string;
beforeAll(async () => {
  t = await buildTestApp();
  owner = await registerUser(t, { orgName: "CRM Org" });
  other = await registerUser(t, { orgName: "Other Org" });
  const [row] = await t.deps.database.db.select({ brandId: sessions.brandId }).from(sessions).where(eq(sessions.idHash, sha256(owner.session)));
  brandId = row!.brandId!;
});
afterAll(() => t.close());

const testCrm = (session: string | undefined, body: unknown) => call(t, "POST", "/api/admin/test-crm", { session, body });
const retry = (session: string | undefined, orderId: string) => call(t, "POST", "/api/admin/crm-retry", { session, body: { orderId } });
const orderRow = async (orderId: string) => (await t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId)))[0]!;
const crmRecords = (orderId: string) =>
  t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, orderId), eq(demoProviderRecords.kind, "crm_record")));
const retryAudits = (orderRef: string) => t.deps.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, "crm.retry"), eq(auditLogs.resourceId, orderRef)));

async function asMember() {
  const user = await registerUser(t, { orgName: "Members" });
  await t.deps.database.db.update(memberships).set({ role: "member" }).where(eq(memberships.userId, user.userId));
  return user;
}

/** A demo checkout of the owner's brand completed asking order_crm_b to record it, without billingAddress at completion (so: skipped). */
async function skippedOrder(): Promise<string> {
  const paid = await paidCheckoutViaApi(t, {
    claims: { brandId },
    initialize: { customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" }, billingAddress: address },
    complete: { recordInCrm: true, crmProvider: "order_crm_b" },
  });
  const done = await post(t, "/api/checkout/complete", paid.completion);
  expect(done.statusCode, done.body).toBe(200);
  expect(json(done).crmOrderId).toBeUndefined();
  return paid.orderId;
}

describe("POST /api/admin/test-crm", () => {
  it.each(["order_crm_a", "order_crm_b", "cart_gateway"])("answers demo for %s without settings", async (provider) => {
    const res = await testCrm(owner.session, { provider });
    expect(res.statusCode).toBe(200);
    expect(json(res)).toEqual({ success: true, provider, demo: true });
  });

  it.each(["intent_gateway", "paypal"])("refuses %s with 400", async (provider) => {
    const res = await testCrm(owner.session, { provider });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "provider" });
  });

  it("answers 401 without a session and 403 for a member", async () => {
    expect((await testCrm(undefined, { provider: "order_crm_a" })).statusCode).toBe(401);
    expect((await testCrm((await asMember()).session, { provider: "order_crm_a" })).statusCode).toBe(403);
  });

  it("answers 409 PROVIDER_NOT_CONFIGURED in live mode while the CRM has no settings", async () => {
    const live = await buildTestApp({ env: { PAYMENT_MODE: "live" } });
    try {
      const user = await registerUser(live);
      const res = await call(live, "POST", "/api/admin/test-crm", { session: user.session, body: { provider: "order_crm_a" } });
      expect(res.statusCode).toBe(409);
      expect(json(res)).toMatchObject({ error: "Payment provider not configured", code: "PROVIDER_NOT_CONFIGURED" });
    } finally {
      await live.close();
    }
  });
});

describe("POST /api/admin/crm-retry", () => {
  it("records a skipped order with the checkout's customer and address, once", async () => {
    const orderId = await skippedOrder();
    const before = await orderRow(orderId);
    expect(before).toMatchObject({ crmProvider: "order_crm_b", crmStatus: "skipped", crmOrderId: null });

    const res = await retry(owner.session, orderId);
    expect(res.statusCode, res.body).toBe(200);
    const body = json(res);
    expect(body).toMatchObject({ success: true, orderId, crmProvider: "order_crm_b", crmStatus: "recorded", alreadyRecorded: false });
    expect(await orderRow(orderId)).toMatchObject({ crmStatus: "recorded", crmOrderId: body.crmOrderId });
    const records = await crmRecords(orderId);
    expect(records).toHaveLength(1);
    expect(records[0]!.data).toMatchObject({ customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" }, billingAddress: address });

    const again = await retry(owner.session, orderId);
    expect(json(again)).toEqual({ ...body, alreadyRecorded: true });
    expect(await crmRecords(orderId)).toHaveLength(1);
    const audits = await retryAudits(before.id);
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ success: true, actorId: owner.userId, organizationId: expect.any(String) });
  });

  it("records an order once when two retries run at the same time", async () => {
    const orderId = await skippedOrder();
    const answers = (await Promise.all([retry(owner.session, orderId), retry(owner.session, orderId)])).map((res) => {
      expect(res.statusCode, res.body).toBe(200);
      return json(res);
    });
    expect(answers.map((a) => a.alreadyRecorded).sort()).toEqual([false, true]);
    expect(answers[0]!.crmOrderId).toBe(answers[1]!.crmOrderId);
    expect(await crmRecords(orderId)).toHaveLength(1);
    expect(await retryAudits((await orderRow(orderId)).id)).toHaveLength(1);
  });

  it("records an order whose recording failed", async () => {
    const orderId = await skippedOrder();
    await t.deps.database.db.update(orders).set({ crmStatus: "failed" }).where(eq(orders.orderId, orderId));
    const res = await retry(owner.session, orderId);
    expect(json(res)).toMatchObject({ crmStatus: "recorded", alreadyRecorded: false });
  });

  it("refuses an order that was not to be recorded in a CRM with 400", async () => {
    const orderId = await skippedOrder();
    await t.deps.database.db.update(orders).set({ crmProvider: null, crmStatus: null }).where(eq(orders.orderId, orderId));
    const res = await retry(owner.session, orderId);
    expect(res.statusCode).toBe(400);
    expect(await crmRecords(orderId)).toHaveLength(0);
  });

  it("refuses an order without a billing address with 400, recording nothing", async () => {
    const orderId = await skippedOrder();
    await t.deps.database.db.update(orders).set({ billingAddress: null }).where(eq(orders.orderId, orderId));
    const res = await retry(owner.session, orderId);
    expect(res.statusCode).toBe(400);
    expect(json(res).error).toBe("CRM recording needs customer and billingAddress");
    expect(await crmRecords(orderId)).toHaveLength(0);
  });

  it("answers 404 for an unknown order and for another organization's order, changing nothing", async () => {
    expect((await retry(owner.session, "no-such-order")).statusCode).toBe(404);
    const orderId = await skippedOrder();
    const res = await retry(other.session, orderId);
    expect(res.statusCode).toBe(404);
    expect(json(res)).toMatchObject({ error: "Order not found", code: "NOT_FOUND" });
    expect((await orderRow(orderId)).crmStatus).toBe("skipped");
    expect(await crmRecords(orderId)).toHaveLength(0);
  });

  it("answers 401 without a session and 403 for a member", async () => {
    const orderId = await skippedOrder();
    expect((await retry(undefined, orderId)).statusCode).toBe(401);
    expect((await retry((await asMember()).session, orderId)).statusCode).toBe(403);
    expect((await orderRow(orderId)).crmStatus).toBe("skipped");
  });
});
