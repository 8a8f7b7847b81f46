// Disputes from the providers' own notifications (issue 17): Stripe-signed `charge.dispute.*` events for
// intent_gateway, NMI-signed `chargeback.batch.complete` for the vault gateways, Shopify's `disputes/*`
// topics for the hosted store, and Standard Webhooks-signed `order.chargeback.*` (order CRMs) and
// `dispute.*` (cart_gateway) events create or update a dispute of the charge, exactly once per dispute; the order reads `disputed`; the commission is held and
// follows the outcome (CONTRACT §38); `dispute.created` and `dispute.closed` reach the merchant's endpoint.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCall, registerOwner, type Registered } from "../../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../../test/support/app.js";
import { bulkCommissions, commissionedOrder, commissionOf, newSalesperson, portalOf } from "../../../test/support/commissions.js";
import { acceptedUpsell, completeCheckoutViaApi } from "../../../test/support/completed-checkout.js";
import { notifyChargebacks, notifyHostedStore, notifyIntentGateway, notifyStandardWebhooks, setDisputeSecrets } from "../../../test/support/disputes.js";
import { startReceiver, type Receiver } from "../../../test/support/webhook-receiver.js";
import { auditLogs, disputes, incomingWebhookEvents, orders, outboxEvents, refunds } from "../../db/schema/index.js";

let t: TestApp;
let shop: Registered;
let receiver: Receiver;
beforeAll(async () => {
  [t, receiver] = await Promise.all([buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } }), startReceiver()]);
  shop = await registerOwner(t);
  await setDisputeSecrets(t, shop);
  const endpoint = await adminCall(t, "POST", "/api/admin/webhooks", { session: shop.session, body: { url: `${receiver.url}/hook`, events: ["dispute.created", "dispute.closed"] } });
  expect(endpoint.statusCode, endpoint.body).toBe(200);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const db = () => t.deps.database.db;
let seq = 0;
const evt = () => `evt_dispute_${++seq}`;
const detail = async (id: string) => json(await adminCall(t, "GET", `/api/admin/orders/${id}`, { session: shop.session }));
const listed = async (query: string) => json(await adminCall(t, "GET", `/api/admin/orders?${query}`, { session: shop.session })).orders.map((o: { orderId: string }) => o.orderId);
const disputesOf = (orderRef: string) => db().select().from(disputes).where(eq(disputes.orderRef, orderRef));
const eventsOf = async (type: string, orderId: string) => (await db().select().from(outboxEvents).where(eq(outboxEvents.type, type))).filter((e) => (e.payload as { orderId: string }).orderId === orderId);
const DUE = 1_900_000_000;

/** The Dispute object Stripe sends for a charge paid through intent_gateway (demo: its transaction id is the intent's). */
const stripeDispute = (paymentIntent: string, over: Record<string, unknown> = {}) => ({
  id: `dp_${paymentIntent.slice(-8)}`,
  amount: 1000,
  currency: "usd",
  charge: "ch_1",
  payment_intent: paymentIntent,
  reason: "fraudulent",
  status: "needs_response",
  evidence_details: { due_by: DUE, has_evidence: false },
  ...over,
});

describe("intent_gateway: charge.dispute.* (Stripe-Signature)", () => {
  it("opens, updates and closes a dispute as won: the order reads disputed then paid again, the commission is held then given its status back, events delivered", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { provider: "intent_gateway" });
    const created = { id: evt(), type: "charge.dispute.created", dispute: stripeDispute(order.transactionId) };
    const res = await notifyIntentGateway(t, created);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ received: true, duplicate: false, outcome: "applied" });

    const shown = await detail(order.id);
    expect(shown.status).toBe("disputed");
    expect(shown.disputes).toEqual([
      {
        id: expect.stringMatching(/^dsp_/),
        orderId: order.orderId,
        chargeId: order.id,
        provider: "intent_gateway",
        providerDisputeId: created.dispute.id,
        amount: 1000,
        currency: "USD",
        reason: "fraudulent",
        status: "needs_response",
        dueBy: DUE * 1000,
        evidence: null,
        evidenceSubmittedAt: null,
        evidenceSent: null,
        closedAt: null,
        createdAt: t.clock.now(),
      },
    ]);
    expect(await listed(`status=disputed&q=${order.orderId}`)).toEqual([order.orderId]);
    expect(await listed(`status=paid&q=${order.orderId}`)).toEqual([]);
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "disputed", statusBeforeDispute: "pending" });

    // Redelivered: the same event id changes nothing; another event of the same dispute updates its row.
    expect(json(await notifyIntentGateway(t, created))).toMatchObject({ duplicate: true });
    await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.updated", dispute: stripeDispute(order.transactionId, { status: "under_review" }) });
    expect((await disputesOf(order.id)).map((d) => d.status)).toEqual(["under_review"]);
    expect(await eventsOf("dispute.created", order.orderId)).toHaveLength(1);

    t.clock.advance(60_000);
    await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.closed", dispute: stripeDispute(order.transactionId, { status: "won" }) });
    expect(await detail(order.id)).toMatchObject({ status: "paid", disputes: [{ status: "won", closedAt: t.clock.now() }] });
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "pending", statusBeforeDispute: null });
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.resourceId, commission.id), eq(auditLogs.action, "commission.restore")))).toEqual([
      expect.objectContaining({ actorType: "system", details: { from: "disputed", to: "pending", disputeId: shown.disputes[0].id } }),
    ]);

    // Won: the charge can be refunded again.
    expect((await adminCall(t, "POST", `/api/admin/orders/${order.id}/refunds`, { session: shop.session, body: { amount: 100, reason: "other" } })).statusCode).toBe(200);
    // A late notice of the closed dispute changes nothing.
    await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.updated", dispute: stripeDispute(order.transactionId, { status: "needs_response" }) });
    expect((await disputesOf(order.id)).map((d) => d.status)).toEqual(["won"]);

    await t.app.webhookWorker.deliverDue();
    const bodies = receiver.received.map((r) => JSON.parse(r.body)).filter((b) => b.data.orderId === order.orderId);
    const data = { orderId: order.orderId, transactionId: order.transactionId, provider: "intent_gateway", amount: 1000, currency: "USD", disputeId: shown.disputes[0].id, providerDisputeId: created.dispute.id, reason: "fraudulent", livemode: false, metadata: {}, checkoutMetadata: {} };
    // livemode: the charge was paid through the demo adapter (issue 21).
    // Deliveries go out concurrently: compare them by type.
    expect(Object.fromEntries(bodies.map((b) => [b.type, b.data]))).toEqual({
      "dispute.created": { ...data, status: "needs_response", dueBy: DUE * 1000 },
      "dispute.closed": { ...data, status: "won" },
    });
    expect(bodies).toHaveLength(2);
  });

  it("concurrent notices of one dispute store it once, with one dispute.created and one commission move", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { provider: "intent_gateway" });
    const notices = ["needs_response", "needs_response", "under_review", "needs_response", "under_review"].map((status) => ({ id: evt(), type: "charge.dispute.updated", dispute: stripeDispute(order.transactionId, { status }) }));
    const answers = await Promise.all(notices.map((n) => notifyIntentGateway(t, n)));
    expect(answers.map((a) => a.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await disputesOf(order.id)).toHaveLength(1);
    expect(await eventsOf("dispute.created", order.orderId)).toHaveLength(1);
    expect(await db().select().from(auditLogs).where(and(eq(auditLogs.resourceId, commission.id), eq(auditLogs.action, "commission.dispute")))).toHaveLength(1);
  });

  it("a lost dispute acts as a full refund: an approved commission is cancelled and the order stays disputed", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { provider: "intent_gateway" });
    await bulkCommissions(t, shop, "approve", [commission.id]);
    await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.created", dispute: stripeDispute(order.transactionId) });
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "disputed", statusBeforeDispute: "approved" });
    await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.closed", dispute: stripeDispute(order.transactionId, { status: "lost" }) });
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "cancelled", statusBeforeDispute: null });
    expect(await detail(order.id)).toMatchObject({ status: "disputed", disputes: [{ status: "lost" }] });
    // The money went back through the dispute: it cannot be refunded as well.
    const refund = await adminCall(t, "POST", `/api/admin/orders/${order.id}/refunds`, { session: shop.session, body: { reason: "other" } });
    expect(refund.statusCode).toBe(409);
    expect(json(refund)).toMatchObject({ error: "Charge is disputed: answer the dispute instead", code: "CHARGE_DISPUTED" });
    expect(await db().select().from(refunds).where(eq(refunds.orderRef, order.id))).toEqual([]);
    expect((await eventsOf("dispute.closed", order.orderId)).map((e) => e.payload)).toEqual([expect.objectContaining({ status: "lost" })]);
  });

  it("a paid commission stays paid while disputed; a lost dispute claws all of it back, shown in the portal", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { provider: "intent_gateway" });
    await bulkCommissions(t, shop, "approve", [commission.id]);
    await bulkCommissions(t, shop, "markPaid", [commission.id]);
    await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.created", dispute: stripeDispute(order.transactionId) });
    expect((await commissionOf(t, commission.id)).status).toBe("paid");
    await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.closed", dispute: stripeDispute(order.transactionId, { status: "lost" }) });
    const [dispute] = await disputesOf(order.id);
    expect((await commissionOf(t, commission.id)).status).toBe("paid");
    expect((await portalOf(t, sp.email)).clawbacks).toEqual([expect.objectContaining({ commissionId: commission.id, amount: -100, disputeId: dispute!.id, refundId: null, nettedAt: null })]);
  });

  it("a dispute naming no charge of the verifying brand is stored as unmatched and changes nothing", async () => {
    const order = (await commissionedOrder(t, shop, "sp_x", { provider: "intent_gateway" })).order;
    const rival = await registerOwner(t);
    await setDisputeSecrets(t, rival);
    // Signed with the rival's secret (the same value, another brand): it may only touch the rival's charges.
    const res = await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.created", dispute: stripeDispute(order.transactionId) }, `?brand=${rival.brandId}`);
    expect(json(res)).toMatchObject({ duplicate: false, outcome: "unmatched" });
    const unknown = await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.created", dispute: stripeDispute("pi_unknown_123456") }, `?brand=${shop.brandId}`);
    expect(json(unknown)).toMatchObject({ outcome: "unmatched" });
    expect(await disputesOf(order.id)).toEqual([]);
  });

  it("refuses a malformed dispute object with 400 and writes nothing", async () => {
    const { order } = await commissionedOrder(t, shop, "sp_x", { provider: "intent_gateway" });
    const res = await notifyIntentGateway(t, { id: evt(), type: "charge.dispute.created", dispute: stripeDispute(order.transactionId, { amount: -5 }) });
    expect(res.statusCode).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details: "data.object.amount" });
    expect(await disputesOf(order.id)).toEqual([]);
  });
});

describe.each(["vault_gateway_a", "vault_gateway_b"] as const)("%s: chargeback.batch.complete (NMI Webhook-Signature)", (provider) => {
  it("opens a dispute per chargeback of a known transaction, in the charge's currency; the rest of the batch is left unmatched; a redelivery changes nothing", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { provider });
    const eventId = evt();
    const batch = [
      { id: `cb_${order.transactionId}`, transaction_id: order.transactionId, date: "20261122", customer_name: "Ada Lovelace", cc_number: "4xxxxxxxxxxx1111", amount: "7.50", reason: "Merchandise not received", reason_code: "13.1" },
      { id: "cb_unknown", transaction_id: "999999999", amount: "1.00", reason_code: "10.4" },
    ];
    const res = await notifyChargebacks(t, provider, eventId, batch);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ duplicate: false, outcome: "applied" });
    expect(await detail(order.id)).toMatchObject({
      status: "disputed",
      disputes: [{ provider, providerDisputeId: batch[0]!.id, amount: 750, currency: "USD", reason: "Merchandise not received", status: "needs_response", dueBy: null }],
    });
    expect((await commissionOf(t, commission.id)).status).toBe("disputed");
    expect(json(await notifyChargebacks(t, provider, eventId, batch))).toMatchObject({ duplicate: true });
    expect(await notifyChargebacks(t, provider, evt(), batch.slice(0, 1)).then(json)).toMatchObject({ outcome: "applied" });
    expect(await disputesOf(order.id)).toHaveLength(1);
    expect(await eventsOf("dispute.created", order.orderId)).toHaveLength(1);
  });
});

describe("hosted_store: disputes/create and disputes/update (X-Shopify-Hmac-Sha256)", () => {
  /** The Dispute object Shopify sends: it names the store's order, which our charge keeps as its provider order id. */
  const shopifyDispute = (storeOrderId: string, over: Record<string, unknown> = {}) => ({
    id: 285332461,
    // Shopify's order ids are numbers; the demo store's are text.
    order_id: /^\d+$/.test(storeOrderId) ? Number(storeOrderId) : storeOrderId,
    type: "chargeback",
    amount: "12.50",
    currency: "USD",
    reason: "fraudulent",
    network_reason_code: "4837",
    status: "needs_response",
    evidence_due_by: "2026-12-10T23:59:59Z",
    evidence_sent_on: null,
    finalized_on: null,
    ...over,
  });

  it("opens the dispute on the charge of the store order it names, updates it, closes it as lost; an unknown store order is unmatched", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { provider: "hosted_store" });
    const [row] = await db().select().from(orders).where(eq(orders.id, order.id));
    expect(row!.providerOrderId).toBeTruthy();
    const storeOrderId = row!.providerOrderId!;

    const res = await notifyHostedStore(t, { id: evt(), topic: "disputes/create", dispute: shopifyDispute(storeOrderId) });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ received: true, duplicate: false, outcome: "applied" });
    expect(await detail(order.id)).toMatchObject({
      status: "disputed",
      disputes: [{ provider: "hosted_store", providerDisputeId: "285332461", amount: 1250, currency: "USD", reason: "fraudulent", status: "needs_response", dueBy: Date.parse("2026-12-10T23:59:59Z") }],
    });
    expect((await commissionOf(t, commission.id)).status).toBe("disputed");

    await notifyHostedStore(t, { id: evt(), topic: "disputes/update", dispute: shopifyDispute(storeOrderId, { status: "under_review", evidence_sent_on: "2026-12-01T10:00:00Z" }) });
    expect((await disputesOf(order.id)).map((d) => d.status)).toEqual(["under_review"]);
    await notifyHostedStore(t, { id: evt(), topic: "disputes/update", dispute: shopifyDispute(storeOrderId, { status: "lost", finalized_on: "2026-12-20T10:00:00Z" }) });
    expect(await detail(order.id)).toMatchObject({ status: "disputed", disputes: [{ status: "lost", closedAt: t.clock.now() }] });
    expect((await commissionOf(t, commission.id)).status).toBe("cancelled");
    expect(await eventsOf("dispute.closed", order.orderId)).toHaveLength(1);

    const unknown = await notifyHostedStore(t, { id: evt(), topic: "disputes/create", dispute: shopifyDispute("999999999999", { id: 1 }) });
    expect(unknown.statusCode, unknown.body).toBe(200);
    expect(json(unknown)).toMatchObject({ outcome: "unmatched" });
  });

  it("refuses a forged signature and a malformed dispute with 400, writing nothing", async () => {
    const { order } = await commissionedOrder(t, shop, (await newSalesperson(t, shop)).id, { provider: "hosted_store" });
    const [row] = await db().select().from(orders).where(eq(orders.id, order.id));
    const body = JSON.stringify(shopifyDispute(row!.providerOrderId!));
    const forged = await t.app.inject({
      method: "POST",
      url: "/api/webhooks/hosted_store",
      payload: body,
      headers: { "content-type": "application/json", "x-shopify-topic": "disputes/create", "x-shopify-webhook-id": evt(), "x-shopify-hmac-sha256": Buffer.from("forged").toString("base64") },
    });
    expect(forged.statusCode, forged.body).toBe(400);
    const malformed = await notifyHostedStore(t, { id: evt(), topic: "disputes/create", dispute: shopifyDispute(row!.providerOrderId!, { amount: "ten dollars" }) });
    expect(malformed.statusCode, malformed.body).toBe(400);
    expect(json(malformed).code).toBe("VALIDATION_ERROR");
    expect(await disputesOf(order.id)).toEqual([]);
  });
});

type StandardProvider = "order_crm_a" | "order_crm_b" | "cart_gateway";
type Kind = "created" | "updated" | "closed";
type Charge = { orderId: string; transactionId: string };
const CRM_DUE = "2026-12-10";
/** Each Standard Webhooks provider's dispute events, in its words (docs/webhooks.md "Provider schemes"). */
const crmCase = (provider: StandardProvider) => ({
  provider,
  notice: (kind: Kind, charge: Charge, status: string, over: Record<string, unknown> = {}) => ({
    id: evt(),
    type: `order.chargeback.${kind}`,
    data: { orderId: charge.orderId, transactionId: charge.transactionId, chargebackId: `cb_${charge.orderId}`, amount: "7.50", currency: "usd", reason: "Fraud", reasonCode: "10.4", status, dueDate: CRM_DUE, ...over },
  }),
  words: { open: "open", review: "represented", won: "won", lost: "lost" },
  shown: { providerDisputeId: (c: Charge) => `cb_${c.orderId}`, reason: "Fraud", dueBy: Date.parse(CRM_DUE) },
});
const STANDARD_CASES = [
  crmCase("order_crm_a"),
  crmCase("order_crm_b"),
  {
    provider: "cart_gateway" as StandardProvider,
    notice: (kind: Kind, charge: Charge, status: string, over: Record<string, unknown> = {}) => ({
      id: evt(),
      type: `dispute.${kind}`,
      data: { disputeId: `dp_${charge.orderId}`, transactionId: charge.transactionId, orderId: charge.orderId, amount: 750, currency: "usd", reason: "fraudulent", status, evidenceDueBy: DUE, ...over },
    }),
    words: { open: "needs_response", review: "under_review", won: "won", lost: "lost" },
    shown: { providerDisputeId: (c: Charge) => `dp_${c.orderId}`, reason: "fraudulent", dueBy: DUE * 1000 },
  },
];

describe.each(STANDARD_CASES)("$provider: dispute events (Standard Webhooks)", ({ provider, notice, words, shown }) => {
  it("opens, updates and closes a dispute as won: disputed then paid again, the commission held then given back, one event each; a redelivery changes nothing", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { provider });
    const created = notice("created", order, words.open);
    const res = await notifyStandardWebhooks(t, provider, created);
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({ received: true, duplicate: false, outcome: "applied" });
    expect(await detail(order.id)).toMatchObject({
      status: "disputed",
      disputes: [{ orderId: order.orderId, chargeId: order.id, provider, providerDisputeId: shown.providerDisputeId(order), amount: 750, currency: "USD", reason: shown.reason, status: "needs_response", dueBy: shown.dueBy, closedAt: null }],
    });
    expect(await listed(`status=disputed&q=${order.orderId}`)).toEqual([order.orderId]);
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "disputed", statusBeforeDispute: "pending" });

    expect(json(await notifyStandardWebhooks(t, provider, created))).toMatchObject({ duplicate: true });
    await notifyStandardWebhooks(t, provider, notice("updated", order, words.review));
    expect((await disputesOf(order.id)).map((d) => d.status)).toEqual(["under_review"]);

    t.clock.advance(60_000);
    const closed = await notifyStandardWebhooks(t, provider, notice("closed", order, words.won));
    expect(json(closed)).toMatchObject({ outcome: "applied" });
    expect(await detail(order.id)).toMatchObject({ status: "paid", disputes: [{ status: "won", closedAt: t.clock.now() }] });
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "pending", statusBeforeDispute: null });
    // A late notice of the closed dispute changes nothing.
    await notifyStandardWebhooks(t, provider, notice("updated", order, words.open));
    expect((await disputesOf(order.id)).map((d) => d.status)).toEqual(["won"]);
    expect((await eventsOf("dispute.created", order.orderId)).map((e) => e.payload)).toEqual([expect.objectContaining({ provider, status: "needs_response", amount: 750 })]);
    expect((await eventsOf("dispute.closed", order.orderId)).map((e) => e.payload)).toEqual([expect.objectContaining({ provider, status: "won" })]);
  });

  it("a dispute closed as lost acts as a full refund: the approved commission is cancelled and the order stays disputed", async () => {
    const sp = await newSalesperson(t, shop);
    const { order, commission } = await commissionedOrder(t, shop, sp.id, { provider });
    await bulkCommissions(t, shop, "approve", [commission.id]);
    await notifyStandardWebhooks(t, provider, notice("created", order, words.open));
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "disputed", statusBeforeDispute: "approved" });
    await notifyStandardWebhooks(t, provider, notice("closed", order, words.lost));
    expect(await commissionOf(t, commission.id)).toMatchObject({ status: "cancelled", statusBeforeDispute: null });
    expect(await detail(order.id)).toMatchObject({ status: "disputed", disputes: [{ status: "lost" }] });
    expect((await eventsOf("dispute.closed", order.orderId)).map((e) => e.payload)).toEqual([expect.objectContaining({ status: "lost" })]);
  });

  it("a dispute of no order of the brand is stored as unmatched and changes nothing", async () => {
    const { order } = await commissionedOrder(t, shop, "sp_x", { provider });
    const unknown = { orderId: `unknown-${order.orderId}`, transactionId: "txn_unknown_0001" };
    const res = await notifyStandardWebhooks(t, provider, notice("created", unknown, words.open, { brandId: shop.brandId }));
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ duplicate: false, outcome: "unmatched" });
    expect(await db().select().from(disputes).where(eq(disputes.orderId, unknown.orderId))).toEqual([]);
    expect(await detail(order.id)).toMatchObject({ status: "paid", disputes: [] });
  });

  it("refuses a forged signature and malformed events with 400, writing nothing", async () => {
    const { order } = await commissionedOrder(t, shop, (await newSalesperson(t, shop)).id, { provider });
    const forged = await notifyStandardWebhooks(t, provider, notice("created", order, words.open), "whsec_" + Buffer.alloc(24, 5).toString("base64"));
    expect(forged.statusCode, forged.body).toBe(400);
    expect(json(forged)).toMatchObject({ error: "Invalid webhook signature", code: "BAD_REQUEST" });
    const malformed: [Record<string, unknown>, string][] = [
      [notice("created", order, words.open, { amount: provider === "cart_gateway" ? -5 : "ten dollars" }), "data.amount"],
      [notice("created", order, "escalated"), "data.status"],
      // A closing event must say how it closed.
      [notice("closed", order, words.open), "data.status"],
    ];
    for (const [event, details] of malformed) {
      const res = await notifyStandardWebhooks(t, provider, event);
      expect(res.statusCode, res.body).toBe(400);
      expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details });
    }
    const broken = await t.app.inject({ method: "POST", url: `/api/webhooks/${provider}`, payload: "{not json", headers: { "content-type": "application/json" } });
    expect(broken.statusCode).toBe(400);
    expect(await disputesOf(order.id)).toEqual([]);
    expect(await db().select().from(incomingWebhookEvents).where(eq(incomingWebhookEvents.orderId, order.orderId))).toEqual([]);
  });
});

it("a chargeback of an upsell charge disputes that charge: shown in its checkout order's detail", async () => {
  const done = await completeCheckoutViaApi(t, { provider: "vault_gateway_b", claims: { brandId: shop.brandId } });
  await acceptedUpsell(t, done);
  const [upsell] = await db().select().from(orders).where(eq(orders.orderId, `${done.orderId}-up`));
  await notifyChargebacks(t, "vault_gateway_b", evt(), [{ id: "cb_upsell", transaction_id: upsell!.transactionId, amount: "15.00", reason: "Fraud" }]);
  const [checkout] = await db().select().from(orders).where(and(eq(orders.orderId, done.orderId), eq(orders.kind, "checkout")));
  expect(await detail(checkout!.id)).toMatchObject({ status: "paid", upsells: [{ status: "disputed" }], disputes: [{ orderId: `${done.orderId}-up`, chargeId: upsell!.id, amount: 1500 }] });
});
