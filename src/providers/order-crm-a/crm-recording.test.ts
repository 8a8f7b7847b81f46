// The real CRM recording of order_crm_a and order_crm_b against fakes of their APIs at the network
// boundary: test-crm leaves demo mode, completion records the order at the CRM, a failed recording
// is retried by POST /api/admin/crm-retry once, and failOnCrmError turns a CRM failure into 502.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { registerOwner } from "../../../test/support/admin.js";
import { CRM_BUYER, paidCheckoutViaApi } from "../../../test/support/completed-checkout.js";
import { call } from "../../../test/support/identity.js";
import { post } from "../../../test/support/provider-payments.js";
import { auditLogs, orders } from "../../db/schema/index.js";
import { startFakeOrderCrmB, type FakeOrderCrmB } from "../order-crm-b/fake-server.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../vault-gateway-a/fake-server.js";
import { startFakeOrderCrmA, type FakeOrderCrmA } from "./fake-server.js";

let t: TestApp;
let crmA: FakeOrderCrmA;
let crmB: FakeOrderCrmB;
let gateway: FakeVaultGateway;
let session: string;
let brandId: string;
beforeAll(async () => {
  [t, crmA, crmB, gateway] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeOrderCrmA(), startFakeOrderCrmB(), startFakeVaultGateway()]);
  ({ session, brandId } = await registerOwner(t));
  // Live orders (issue 33: a test order is recorded in the demo CRM, never the real one): vault_gateway_b has real credentials too.
  const saved = await call(t, "POST", "/api/admin/settings", { session, body: { provider: "vault_gateway_b", settings: { securityKey: gateway.securityKey, baseUrl: gateway.baseUrl } } });
  expect(saved.statusCode, saved.body).toBe(200);
});
afterAll(async () => {
  await Promise.all([t.close(), crmA.close(), crmB.close(), gateway.close()]);
});

interface Case {
  provider: "order_crm_a" | "order_crm_b";
  fake: () => FakeOrderCrmA | FakeOrderCrmB;
  credentials: () => Record<string, string>;
  /** What the CRM received for our last recording: campaign and our order id. */
  lastRecording: () => { campaignId: unknown; externalOrderId: unknown; email: unknown };
}

const CASES: Case[] = [
  {
    provider: "order_crm_a",
    fake: () => crmA,
    credentials: () => ({ apiUsername: crmA.username, apiPassword: crmA.password }),
    lastRecording: () => {
      const r = crmA.requests.filter((q) => q.path === "/api/v1/new_order").at(-1)!.json;
      return { campaignId: r.campaignId, externalOrderId: r.externalOrderId, email: r.email };
    },
  },
  {
    provider: "order_crm_b",
    fake: () => crmB,
    credentials: () => ({ apiUsername: crmB.loginId, apiPassword: crmB.password }),
    lastRecording: () => {
      const r = crmB.requests.filter((q) => q.path === "/order/import/").at(-1)!.form;
      return { campaignId: r.campaignId, externalOrderId: r.externalOrderId, email: r.emailAddress };
    },
  },
];

const settings = (c: Case, extra: Record<string, unknown> = {}) =>
  call(t, "POST", "/api/admin/settings", { session, body: { provider: c.provider, settings: { ...c.credentials(), campaignId: "camp-7", baseUrl: c.fake().baseUrl, ...extra } } });
const orderRow = async (orderId: string) => (await t.deps.database.db.select().from(orders).where(eq(orders.orderId, orderId)))[0];

/** A live vault_gateway_b payment (at the fake gateway; the token names the provider) completed asking `crm` to record it. */
async function completeWithCrm(crm: string) {
  const paid = await paidCheckoutViaApi(t, { claims: { brandId, provider: "vault_gateway_b" }, complete: { ...CRM_BUYER, recordInCrm: true, crmProvider: crm } });
  return { orderId: paid.orderId, res: await post(t, "/api/checkout/complete", paid.completion) };
}

describe.each(CASES)("$provider CRM recording with settings", (c) => {
  beforeAll(async () => {
    expect((await settings(c)).statusCode).toBe(200);
  });

  it("test-crm checks the connection at the CRM (demo: false)", async () => {
    const before = c.fake().requests.length;
    const res = await call(t, "POST", "/api/admin/test-crm", { session, body: { provider: c.provider } });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ success: true, provider: c.provider, demo: false });
    expect(c.fake().requests.length).toBe(before + 1);
  });

  it("completion records the order at the CRM", async () => {
    const { orderId, res } = await completeWithCrm(c.provider);
    expect(res.statusCode, res.body).toBe(200);
    const crmOrderId = json(res).crmOrderId as string;
    expect(crmOrderId).toBeTruthy();
    expect(json(res).crmProvider).toBe(c.provider);
    expect(c.lastRecording()).toEqual({ campaignId: "camp-7", externalOrderId: orderId, email: "ada@example.com" });
    expect(await orderRow(orderId)).toMatchObject({ crmStatus: "recorded", crmOrderId });
  });

  it("a CRM failure leaves the order failed; crm-retry records it once", async () => {
    c.fake().failNext = "500";
    const { orderId, res } = await completeWithCrm(c.provider);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).crmOrderId).toBeUndefined();
    expect(await orderRow(orderId)).toMatchObject({ crmStatus: "failed", crmOrderId: null });

    c.fake().failNext = "garbage";
    const failed = await call(t, "POST", "/api/admin/crm-retry", { session, body: { orderId } });
    expect(failed.statusCode).toBe(502);
    expect(json(failed)).toMatchObject({ error: `CRM recording with ${c.provider} failed`, code: "PROVIDER_ERROR" });
    expect(await orderRow(orderId)).toMatchObject({ crmStatus: "failed", crmOrderId: null });
    const ref = (await orderRow(orderId))!.id;
    const audits = () => t.deps.database.db.select().from(auditLogs).where(and(eq(auditLogs.action, "crm.retry"), eq(auditLogs.resourceId, ref)));
    expect((await audits()).map((a) => a.success)).toEqual([false]);

    const retried = await call(t, "POST", "/api/admin/crm-retry", { session, body: { orderId } });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(json(retried)).toMatchObject({ crmStatus: "recorded", alreadyRecorded: false });
    expect(c.lastRecording().externalOrderId).toBe(orderId);
    const calls = c.fake().requests.length;
    const again = await call(t, "POST", "/api/admin/crm-retry", { session, body: { orderId } });
    expect(json(again)).toEqual({ ...json(retried), alreadyRecorded: true });
    expect(c.fake().requests.length).toBe(calls);
    expect((await audits()).map((a) => a.success).sort()).toEqual([false, true]);
  });

  it("with failOnCrmError a CRM failure is 502 and no order is written", async () => {
    await settings(c, { failOnCrmError: true });
    try {
      c.fake().failNext = "garbage";
      const { orderId, res } = await completeWithCrm(c.provider);
      expect(res.statusCode).toBe(502);
      expect(json(res)).toMatchObject({ code: "PROVIDER_ERROR" });
      expect(await orderRow(orderId)).toBeUndefined();
    } finally {
      await settings(c, { failOnCrmError: false });
    }
  });

  it("wrong credentials: test-crm answers 502, never echoing them", async () => {
    await settings(c, { apiPassword: "wrong-password-0000" });
    try {
      const res = await call(t, "POST", "/api/admin/test-crm", { session, body: { provider: c.provider } });
      expect(res.statusCode).toBe(502);
      expect(res.body).not.toContain("wrong-password");
      expect(t.logs.join("\n")).not.toContain("wrong-password");
    } finally {
      await settings(c);
    }
  });
});
