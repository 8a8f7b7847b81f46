// Issue 34 item 6: the "Simulate outage" switch of a payment provider's demo adapter, per brand, in
// test mode only (PUT /api/admin/settings/demo-outage): `down` fails the demo charge at once (502
// PROVIDER_ERROR, nothing charged), `timeout` charges, waits and fails; a repeat then answers the
// charge made. Audited; a live-mode request is 409; other brands and providers are untouched.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerOwner, setRole, type Registered } from "../../../test/support/admin.js";
import { buildTestApp, type TestApp } from "../../../test/support/app.js";
import { call } from "../../../test/support/identity.js";
import { createApiKey, withKey } from "../../../test/support/merchant.js";
import { card, post } from "../../../test/support/provider-payments.js";
import { auditLogs, demoProviderRecords, outboxEvents, paymentDeclines } from "../../db/schema/index.js";
import { ABANDONED_CLAIM_MS } from "../../payments/charge-once.js";
import { DEMO_TIMEOUT_MS } from "../../providers/demo/charges.js";

let t: TestApp;
let owner: Registered;
let other: Registered;
let ownerKey: string;
let otherKey: string;
beforeAll(async () => {
  t = await buildTestApp();
  owner = await registerOwner(t, "Outage Org");
  other = await registerOwner(t, "Bystander Org");
  ownerKey = (await createApiKey(t, owner.session)).secret;
  otherKey = (await createApiKey(t, other.session)).secret;
});
afterAll(() => t.close());

const AMOUNT = 1000;
const setOutage = (session: string, body: unknown) => call(t, "PUT", "/api/admin/settings/demo-outage", { session, body });

let sequence = 0;
/** A test checkout of the key's brand (a test key: test mode) opened by the buyer at `provider`, for an order paid next there. */
async function testOrder(key: string, provider: "vault_gateway_a" | "vault_gateway_b"): Promise<string> {
  const orderId = `outage-${++sequence}-${Date.now().toString(36)}`;
  const created = await withKey(t, "POST", "/api/v1/checkouts", key, { orderId, amount: AMOUNT, currency: "USD", productName: "Thing" });
  expect(created.statusCode, created.body).toBe(201);
  const opened = await post(t, "/api/checkout/initialize", { token: created.json().token, provider });
  expect(opened.statusCode, opened.body).toBe(200);
  return orderId;
}
const pay = (provider: "vault_gateway_a" | "vault_gateway_b", orderId: string) =>
  post(t, `/api/providers/${provider}/process-payment`, { orderId, amount: AMOUNT, currency: "USD", ...card() }, { remoteAddress: `10.9.0.${sequence % 250}` });

describe("PUT /api/admin/settings/demo-outage", () => {
  it("down: a demo charge of that provider of the brand is 502 PROVIDER_ERROR, nothing charged or declined; other providers and brands pay", async () => {
    const set = await setOutage(owner.session, { provider: "vault_gateway_a", outage: "down" });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toEqual({ success: true, provider: "vault_gateway_a", outage: "down", livemode: false });

    const settings = await call(t, "GET", "/api/admin/settings", { session: owner.session });
    expect(settings.json().demoOutages).toEqual({ vault_gateway_a: "down" });
    // The switch's row holds no credentials: the provider stays on its demo adapter.
    expect(settings.json().testStatus.vault_gateway_a).toBe("not_configured");

    const orderId = await testOrder(ownerKey, "vault_gateway_a");
    const failed = await pay("vault_gateway_a", orderId);
    expect(failed.statusCode, failed.body).toBe(502);
    expect(failed.json()).toMatchObject({ code: "PROVIDER_ERROR", error: "Payment provider vault_gateway_a failed" });
    const db = t.deps.database.db;
    expect(await db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, orderId), eq(demoProviderRecords.kind, "charge")))).toHaveLength(0);
    expect(await db.select().from(paymentDeclines).where(eq(paymentDeclines.orderId, orderId))).toHaveLength(0);
    expect((await db.select().from(outboxEvents).where(eq(outboxEvents.type, "payment.failed"))).filter((e) => (e.payload as { orderId?: string }).orderId === orderId)).toHaveLength(0);

    // The brand's other vault gateway pays.
    expect((await pay("vault_gateway_b", await testOrder(ownerKey, "vault_gateway_b"))).statusCode).toBe(200);
    // Another brand's vault_gateway_a is untouched.
    expect((await pay("vault_gateway_a", await testOrder(otherKey, "vault_gateway_a"))).statusCode).toBe(200);

    const [audit] = await db.select().from(auditLogs).where(and(eq(auditLogs.action, "settings.demo_outage"), eq(auditLogs.brandId, owner.brandId)));
    expect(audit).toMatchObject({ resourceType: "provider_settings", resourceId: "vault_gateway_a", success: true, details: { provider: "vault_gateway_a", mode: "test", livemode: false, outage: "down" } });

    // Off: it pays again.
    expect((await setOutage(owner.session, { provider: "vault_gateway_a", outage: "off" })).statusCode).toBe(200);
    expect((await call(t, "GET", "/api/admin/settings", { session: owner.session })).json().demoOutages).toEqual({});
    expect((await pay("vault_gateway_a", await testOrder(ownerKey, "vault_gateway_a"))).statusCode).toBe(200);
  });

  it("timeout: the charge is made, answered 502 after the delay; a repeat after the claim is abandoned answers the charge made, at once", async () => {
    expect((await setOutage(owner.session, { provider: "vault_gateway_b", outage: "timeout" })).statusCode).toBe(200);
    const orderId = await testOrder(ownerKey, "vault_gateway_b");
    const started = Date.now();
    const failed = await pay("vault_gateway_b", orderId);
    expect(failed.statusCode, failed.body).toBe(502);
    expect(failed.json()).toMatchObject({ code: "PROVIDER_ERROR" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(DEMO_TIMEOUT_MS - 50);
    const charges = await t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, orderId), eq(demoProviderRecords.kind, "charge")));
    expect(charges).toMatchObject([{ provider: "vault_gateway_b", status: "succeeded" }]);

    // The identical repeat takes the abandoned claim over with its provider key: the slow provider's charge, no second one.
    t.clock.advance(ABANDONED_CLAIM_MS + 1_000);
    const repeatStarted = Date.now();
    const repeat = await pay("vault_gateway_b", orderId);
    expect(repeat.statusCode, repeat.body).toBe(200);
    expect(repeat.json().transactionId).toBe(charges[0]!.id);
    expect(Date.now() - repeatStarted).toBeLessThan(DEMO_TIMEOUT_MS);
    expect(await t.deps.database.db.select().from(demoProviderRecords).where(and(eq(demoProviderRecords.orderId, orderId), eq(demoProviderRecords.kind, "charge")))).toHaveLength(1);
    expect((await setOutage(owner.session, { provider: "vault_gateway_b", outage: "off" })).statusCode).toBe(200);
  });

  it("refuses live mode (409), a provider that takes no card (400), a member (403)", async () => {
    const live = await setOutage(owner.session, { provider: "vault_gateway_a", outage: "down", livemode: true });
    expect(live.statusCode).toBe(409);
    expect(live.json()).toMatchObject({ code: "OUTAGE_TEST_MODE_ONLY", details: "livemode" });

    const crm = await setOutage(owner.session, { provider: "email_list_a", outage: "down" });
    expect(crm.statusCode).toBe(400);
    expect(crm.json()).toMatchObject({ code: "VALIDATION_ERROR", details: "provider" });

    const bad = await setOutage(owner.session, { provider: "vault_gateway_a", outage: "sometimes" });
    expect(bad.statusCode).toBe(400);

    await setRole(t, other, "member");
    expect((await setOutage(other.session, { provider: "vault_gateway_a", outage: "down" })).statusCode).toBe(403);
    expect((await call(t, "GET", "/api/admin/settings", { session: owner.session })).json().demoOutages).toEqual({});
  });
});
