// Issue 33: a dispute of a TEST charge simulated from the back office, as a provider's notification
// would bring it (events, the charge disputed, then closed by a second call); never on a live charge.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addUser, registerOwner, type Registered } from "../../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { completeCheckoutViaApi } from "../../../test/support/completed-checkout.js";
import { call } from "../../../test/support/identity.js";
import { auditLogs, disputes, orders, outboxEvents } from "../../db/schema/index.js";
import { startFakeVaultGateway, type FakeVaultGateway } from "../../providers/vault-gateway-a/fake-server.js";

let t: TestApp;
let gateway: FakeVaultGateway;
let shop: Registered; // demo providers: test orders
let live: Registered; // vault_gateway_b at the fake gateway: live orders
beforeAll(async () => {
  [t, gateway] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeVaultGateway()]);
  [shop, live] = [await registerOwner(t), await registerOwner(t)];
  const saved = await call(t, "POST", "/api/admin/settings", { session: live.session, body: { provider: "vault_gateway_b", settings: { securityKey: gateway.securityKey, baseUrl: gateway.baseUrl } } });
  expect(saved.statusCode, saved.body).toBe(200);
});
afterAll(async () => {
  await Promise.all([t.close(), gateway.close()]);
});

const db = () => t.deps.database.db;
const orderRowOf = async (orderId: string) => (await db().select().from(orders).where(and(eq(orders.orderId, orderId), eq(orders.kind, "checkout"))))[0]!;
const simulate = (owner: Registered, orderRef: string, body: Record<string, unknown> = {}, session = owner.session) =>
  call(t, "POST", `/api/admin/orders/${orderRef}/disputes/simulate`, { session, body });
const eventsOf = async (type: string, disputeId: string) =>
  (await db().select().from(outboxEvents).where(eq(outboxEvents.type, type))).filter((e) => (e.payload as { disputeId?: string }).disputeId === disputeId);

describe("simulated disputes", () => {
  it("open a dispute of a test charge with its events, and a second call with its id closes it", async () => {
    const done = await completeCheckoutViaApi(t, { claims: { brandId: shop.brandId } });
    const order = await orderRowOf(done.orderId);
    expect(order.livemode).toBe(false);

    const opened = await simulate(shop, order.id, { reason: "product_not_received" });
    expect(opened.statusCode, opened.body).toBe(200);
    const dispute = json(opened).dispute;
    expect(dispute).toMatchObject({ chargeId: order.id, orderId: done.orderId, status: "needs_response", reason: "product_not_received", amount: order.amountCents, providerDisputeId: expect.stringMatching(/^dp_test_/) });
    const [created] = await eventsOf("dispute.created", dispute.id);
    expect(created!.payload).toMatchObject({ livemode: false, status: "needs_response", orderId: done.orderId });
    expect((await orderRowOf(done.orderId)).disputed).toBe(true);

    const won = await simulate(shop, order.id, { providerDisputeId: dispute.providerDisputeId, status: "won" });
    expect(won.statusCode, won.body).toBe(200);
    expect(json(won).dispute).toMatchObject({ id: dispute.id, status: "won", closedAt: expect.any(Number) });
    expect(await eventsOf("dispute.closed", dispute.id)).toHaveLength(1);
    expect((await orderRowOf(done.orderId)).disputed).toBe(false);
    const audit = await db().select().from(auditLogs).where(eq(auditLogs.action, "dispute.simulate"));
    expect(audit.filter((a) => a.resourceId === order.id)).toHaveLength(2);
  });

  it("is refused on a live charge (409), to a member (403), on another brand's order (404); nothing is stored", async () => {
    const paidLive = await completeCheckoutViaApi(t, { claims: { brandId: live.brandId, provider: "vault_gateway_b" } });
    const liveOrder = await orderRowOf(paidLive.orderId);
    expect(liveOrder.livemode).toBe(true);
    const refused = await simulate(live, liveOrder.id);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(json(refused)).toMatchObject({ error: "Disputes can be simulated on test charges only", code: "CONFLICT" });

    const testOrder = await orderRowOf((await completeCheckoutViaApi(t, { claims: { brandId: shop.brandId } })).orderId);
    const member = await addUser(t, shop.session, "member", [shop.brandId]);
    expect((await simulate(shop, testOrder.id, {}, member.session)).statusCode).toBe(403);
    expect((await simulate(live, testOrder.id)).statusCode).toBe(404);
    expect((await simulate(shop, testOrder.id, { charge: "no-such-upsell" })).statusCode).toBe(404);
    expect(await db().select().from(disputes).where(eq(disputes.orderRef, testOrder.id))).toHaveLength(0);
    expect(await db().select().from(disputes).where(eq(disputes.orderRef, liveOrder.id))).toHaveLength(0);
  });
});
