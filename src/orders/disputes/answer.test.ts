// The merchant's answers to a dispute (issue 17): evidence text and acceptance through the back office,
// sent to the intent gateway (its fake server at the network boundary) where its API takes them and
// kept with us only elsewhere; a closed dispute, a provider's refusal or error changes nothing here.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addUser, registerOwner, type Registered } from "../../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { orderClaims, post, signToken } from "../../../test/support/checkout.js";
import { commissionedOrder, commissionOf } from "../../../test/support/commissions.js";
import { notifyChargebacks, notifyIntentGateway, setDisputeSecrets } from "../../../test/support/disputes.js";
import { call } from "../../../test/support/identity.js";
import { auditLogs, commissions, disputes, orders, outboxEvents } from "../../db/schema/index.js";
import { startFakeIntentGateway, type FakeIntentGateway } from "../../providers/intent-gateway/fake-server.js";

let t: TestApp;
let fake: FakeIntentGateway;
let shop: Registered; // intent_gateway through the fake gateway
let demo: Registered; // every provider in demo mode
beforeAll(async () => {
  [t, fake] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startFakeIntentGateway()]);
  [shop, demo] = [await registerOwner(t), await registerOwner(t)];
  await setDisputeSecrets(t, shop, { intent_gateway: { publishableKey: "pk_test_fake", secretKey: fake.secretKey, baseUrl: fake.baseUrl } });
  await setDisputeSecrets(t, demo);
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

const db = () => t.deps.database.db;
let seq = 0;
const answer = (owner: Registered, orderRef: string, disputeId: string, what: "accept" | "evidence", body?: unknown, session = owner.session) =>
  call(t, "POST", `/api/admin/orders/${orderRef}/disputes/${disputeId}/${what}`, { session, body: body ?? {} });
const disputeOf = async (orderRef: string) => (await db().select().from(disputes).where(eq(disputes.orderRef, orderRef)))[0]!;
const auditOf = (action: string, disputeId: string) =>
  db()
    .select()
    .from(auditLogs)
    .where(eq(auditLogs.action, action))
    .then((rows) => rows.filter((r) => (r.details as { disputeId?: string }).disputeId === disputeId));

/** A checkout of the shop paid at the fake gateway with a commission, disputed there and notified to us. */
async function disputedAtGateway() {
  const claims = orderClaims({ amount: 2500, currency: "USD", brandId: shop.brandId });
  const init = await post(t, "/api/checkout/initialize", { token: await signToken(t, claims), provider: "intent_gateway", customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" } });
  expect(init.statusCode, init.body).toBe(200);
  const intentId = json(init).providerOrderId as string;
  fake.pay(intentId, "pm_card_visa");
  const done = await post(t, "/api/checkout/complete", {
    ...{ orderId: claims.orderId, transactionId: intentId, providerOrderId: intentId, provider: "intent_gateway", customerEmail: "ada@example.com", customerName: "Ada", amount: 2500, currency: "USD" },
    salesAttribution: { salespersonId: "sp_gateway", commissionRate: 0.1 },
  });
  expect(done.statusCode, done.body).toBe(200);
  const dispute = fake.dispute(intentId);
  expect((await notifyIntentGateway(t, { id: `evt_answer_${++seq}`, type: "charge.dispute.created", dispute })).statusCode).toBe(200);
  const [order] = await db().select().from(orders).where(and(eq(orders.orderId, claims.orderId as string), eq(orders.kind, "checkout")));
  return { order: order!, atGateway: dispute, ours: await disputeOf(order!.id) };
}

/** A demo-mode vault_gateway_b charge of the demo brand with a chargeback notified by NMI. */
async function chargedBack() {
  const { order, commission } = await commissionedOrder(t, demo, "sp_demo", { provider: "vault_gateway_b" });
  await notifyChargebacks(t, "vault_gateway_b", `evt_cb_${++seq}`, [{ id: `cb_${order.transactionId}`, transaction_id: order.transactionId, amount: "10.00", reason: "Fraud" }]);
  return { order, commission, ours: await disputeOf(order.id) };
}

describe("intent_gateway: answers reach the gateway", () => {
  it("evidence is sent to POST /v1/disputes/<id> and submitted; the dispute is under review; audited without the text", async () => {
    const { order, atGateway, ours } = await disputedAtGateway();
    const text = "Delivered on 2026-11-20, signed for by A. Lovelace; tracking 1Z999.";
    const res = await answer(shop, order.id, ours.id, "evidence", { text });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(json(res).dispute).toMatchObject({ id: ours.id, status: "under_review", evidence: text, evidenceSent: true, evidenceSubmittedAt: t.clock.now() });
    const sent = fake.requests.filter((r) => r.path === `/v1/disputes/${atGateway.id}`);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.form).toEqual({ "evidence[uncategorized_text]": text, submit: "true" });
    expect(fake.disputes.get(atGateway.id)).toMatchObject({ status: "under_review", evidence: { uncategorized_text: text } });
    const [audit] = await auditOf("dispute.evidence", ours.id);
    expect(audit).toMatchObject({ resourceId: order.id, details: { disputeId: ours.id, chargeId: order.id, length: text.length, sentToProvider: true } });
    expect(JSON.stringify(audit)).not.toContain("Lovelace");
  });

  it("accept closes the dispute at the gateway, then here as accepted: the commission is cancelled, dispute.closed queued, audited; a second answer is 409", async () => {
    const { order, atGateway, ours } = await disputedAtGateway();
    const res = await answer(shop, order.id, ours.id, "accept");
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).dispute).toMatchObject({ status: "accepted", closedAt: t.clock.now() });
    const close = fake.requests.filter((r) => r.path === `/v1/disputes/${atGateway.id}/close`);
    expect(close.map((r) => r.headers["idempotency-key"])).toEqual([`dispute-close:${atGateway.id}`]);
    expect(fake.disputes.get(atGateway.id)!.status).toBe("lost");
    const [commission] = await db().select().from(commissions).where(eq(commissions.orderRef, order.id));
    expect(commission!.status).toBe("cancelled");
    const closed = (await db().select().from(outboxEvents).where(eq(outboxEvents.type, "dispute.closed"))).filter((e) => (e.payload as { disputeId: string }).disputeId === ours.id);
    expect(closed.map((e) => e.payload)).toEqual([expect.objectContaining({ status: "accepted", amount: 2500 })]);
    expect(await auditOf("dispute.accept", ours.id)).toEqual([expect.objectContaining({ details: { disputeId: ours.id, chargeId: order.id, sentToProvider: true } })]);
    expect(json(await call(t, "GET", `/api/admin/orders/${order.id}`, { session: shop.session })).status).toBe("disputed");

    for (const what of ["accept", "evidence"] as const) {
      const again = await answer(shop, order.id, ours.id, what, { text: "late" });
      expect(again.statusCode).toBe(409);
      expect(json(again)).toMatchObject({ error: "Dispute is already closed", code: "DISPUTE_CLOSED" });
    }
  });

  it("the gateway's refusal is 409 DISPUTE_REFUSED and its failure 502; nothing changes here", async () => {
    const { order, atGateway, ours } = await disputedAtGateway();
    fake.failNext = "500";
    const failed = await answer(shop, order.id, ours.id, "evidence", { text: "proof" });
    expect(failed.statusCode).toBe(502);
    expect(json(failed)).toMatchObject({ code: "PROVIDER_ERROR" });

    atGateway.status = "won"; // closed at the gateway before its notification reached us
    const refused = await answer(shop, order.id, ours.id, "accept");
    expect(refused.statusCode).toBe(409);
    expect(json(refused)).toMatchObject({ error: "Dispute answer refused: dispute_already_closed", code: "DISPUTE_REFUSED", details: "dispute_already_closed" });
    expect(await disputeOf(order.id)).toMatchObject({ status: "needs_response", evidence: null, closedAt: null });
    expect(await auditOf("dispute.accept", ours.id)).toEqual([]);
  });
});

describe("a provider without a dispute API (vault_gateway_b in demo mode)", () => {
  it("keeps the evidence with us only and accepts here: the commission is cancelled", async () => {
    const { order, commission, ours } = await chargedBack();
    const evidence = await answer(demo, order.id, ours.id, "evidence", { text: "Signed delivery receipt" });
    expect(json(evidence).dispute).toMatchObject({ status: "needs_response", evidence: "Signed delivery receipt", evidenceSent: false });
    const accepted = await answer(demo, order.id, ours.id, "accept");
    expect(json(accepted).dispute).toMatchObject({ status: "accepted", evidence: "Signed delivery receipt" });
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "cancelled" });
    expect(await auditOf("dispute.accept", ours.id)).toEqual([expect.objectContaining({ details: expect.objectContaining({ sentToProvider: false }) })]);
  });
});

describe("who may answer", () => {
  it("another brand's order is 404 Order not found, a member 403, no session 401, another order's dispute 404; nothing changes", async () => {
    const { order, ours } = await chargedBack();
    const other = await chargedBack();
    for (const what of ["accept", "evidence"] as const) {
      const foreign = await answer(shop, order.id, ours.id, what, { text: "x" });
      expect(foreign.statusCode).toBe(404);
      expect(json(foreign)).toMatchObject({ error: "Order not found", code: "NOT_FOUND" });
      expect(json(await answer(demo, other.order.id, ours.id, what, { text: "x" }))).toMatchObject({ error: "Dispute not found", code: "NOT_FOUND" });
      expect((await answer(demo, order.id, "dsp_unknown", what, { text: "x" })).statusCode).toBe(404);
      expect((await call(t, "POST", `/api/admin/orders/${order.id}/disputes/${ours.id}/${what}`, { body: { text: "x" } })).statusCode).toBe(401);
    }
    const member = await addUser(t, demo.session, "member", [demo.brandId]);
    expect((await answer(demo, order.id, ours.id, "accept", {}, member.session)).statusCode).toBe(403);
    expect((await answer(demo, order.id, ours.id, "evidence", { text: "x" }, member.session)).statusCode).toBe(403);
    expect(await disputeOf(order.id)).toMatchObject({ status: "needs_response", evidence: null });
  });

  it("evidence must be 1 to 20 000 characters (400 VALIDATION_ERROR, details text)", async () => {
    const { order, ours } = await chargedBack();
    for (const body of [{}, { text: "" }, { text: "x".repeat(20_001) }, { text: 42 }]) {
      const res = await answer(demo, order.id, ours.id, "evidence", body);
      expect(res.statusCode).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "text" });
    }
    expect((await answer(demo, order.id, ours.id, "evidence", { text: "x".repeat(20_000) })).statusCode).toBe(200);
  });
});
