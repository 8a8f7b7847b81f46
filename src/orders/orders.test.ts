// Issue 17, first step: a merchant finds an order. The back office list and detail (session, the
// selected brand) and the same through /api/v1 (scope orders:read): search, filters, cursor pages,
// upsells under their order, and another brand's orders never shown.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCall, addUser, registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { acceptedUpsell, CARE_PLAN, completeCheckoutViaApi } from "../../test/support/completed-checkout.js";
import { bearer, createApiKey } from "../../test/support/merchant.js";
import { AMOUNT } from "../../test/support/provider-payments.js";
import { startReceiver } from "../../test/support/webhook-receiver.js";
import { orders } from "../db/schema/index.js";
import type { PaymentProviderType } from "../providers/manifest.js";

let t: TestApp;
let shop: Registered;
let rival: Registered;
beforeAll(async () => {
  t = await buildTestApp({ env: { ALLOW_PRIVATE_WEBHOOK_URLS: "true" } });
  shop = await registerOwner(t);
  rival = await registerOwner(t);
});
afterAll(() => t.close());

/** A checkout of `brandId` paid and completed as a buyer does it, with this customer. */
async function paidOrder(brandId: string, options: { email?: string; name?: string; provider?: PaymentProviderType } = {}) {
  const done = await completeCheckoutViaApi(t, {
    provider: options.provider,
    claims: { brandId },
    complete: {
      customerEmail: options.email ?? "ada@example.com",
      customerName: options.name ?? "Ada Lovelace",
      lineItems: [{ id: "kit", name: "Espresso kit", quantity: 2, unitPrice: AMOUNT / 2 }],
    },
  });
  t.clock.advance(1_000); // distinct creation times, so "newest first" is observable
  return done;
}

const list = (query = "", session = shop.session) => adminCall(t, "GET", `/api/admin/orders${query}`, { session });
const orderIdsOf = (body: Record<string, any>): string[] => body.orders.map((o: { orderId: string }) => o.orderId);

describe("GET /api/admin/orders", () => {
  let ada: Awaited<ReturnType<typeof paidOrder>>;
  let grace: Awaited<ReturnType<typeof paidOrder>>;
  let linus: Awaited<ReturnType<typeof paidOrder>>;
  let upsellOrderId: string;
  beforeAll(async () => {
    ada = await paidOrder(shop.brandId, { email: "ada@example.com", name: "Ada Lovelace" });
    grace = await paidOrder(shop.brandId, { email: "grace@navy.example", name: "Grace Hopper", provider: "vault_gateway_a" });
    linus = await paidOrder(shop.brandId, { email: "linus@kernel.example", name: "Linus T" });
    await paidOrder(rival.brandId, { email: "ada@example.com", name: "Ada Lovelace" });
    // An accepted upsell of grace's order.
    ({ upsellOrderId } = await acceptedUpsell(t, grace, CARE_PLAN, { customerEmail: "grace@navy.example" }));
  });

  it("lists the brand's checkout orders newest first, each with its upsells, and no other brand's", async () => {
    const res = await list();
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const body = json(res);
    expect(orderIdsOf(body)).toEqual([linus.orderId, grace.orderId, ada.orderId]);
    expect(body.nextCursor).toBeNull();
    const graceRow = body.orders[1];
    expect(graceRow).toMatchObject({
      orderId: grace.orderId,
      status: "paid",
      amount: AMOUNT,
      currency: "USD",
      provider: "vault_gateway_a",
      transactionId: grace.transactionId,
      customerEmail: "grace@navy.example",
      customerName: "Grace Hopper",
      test: true,
    });
    expect(graceRow.upsells).toEqual([expect.objectContaining({ orderId: upsellOrderId, amount: 1500, status: "paid", provider: "vault_gateway_a" })]);
    expect(body.orders[0].upsells).toEqual([]);
  });

  it("searches by order id, transaction id, the start of an email or a name, ignoring case", async () => {
    expect(orderIdsOf(json(await list(`?q=${grace.orderId}`)))).toEqual([grace.orderId]);
    expect(orderIdsOf(json(await list(`?q=${linus.transactionId}`)))).toEqual([linus.orderId]);
    expect(orderIdsOf(json(await list("?q=GRACE@navy")))).toEqual([grace.orderId]);
    expect(orderIdsOf(json(await list("?q=ada%20love")))).toEqual([ada.orderId]);
    // LIKE's wildcards are plain characters here.
    expect(orderIdsOf(json(await list("?q=%25")))).toEqual([]);
    expect(orderIdsOf(json(await list("?q=_")))).toEqual([]);
  });

  it("filters by provider, status, time, amount and test mode", async () => {
    expect(orderIdsOf(json(await list("?provider=vault_gateway_a")))).toEqual([grace.orderId]);
    expect(orderIdsOf(json(await list("?status=paid")))).toHaveLength(3);
    expect(orderIdsOf(json(await list("?status=refunded")))).toEqual([]);
    const [linusRow] = await t.deps.database.db.select().from(orders).where(eq(orders.orderId, linus.orderId));
    const at = linusRow!.createdAt.getTime();
    expect(orderIdsOf(json(await list(`?from=${at}`)))).toEqual([linus.orderId]);
    expect(orderIdsOf(json(await list(`?to=${at}`)))).toEqual([grace.orderId, ada.orderId]);
    expect(orderIdsOf(json(await list(`?minAmount=${AMOUNT + 1}`)))).toEqual([]);
    expect(orderIdsOf(json(await list(`?maxAmount=${AMOUNT}`)))).toHaveLength(3);
    // Demo-mode payments are test orders; no real money moved in this suite.
    expect(orderIdsOf(json(await list("?test=true")))).toHaveLength(3);
    expect(orderIdsOf(json(await list("?test=false")))).toEqual([]);
  });

  it("pages with a cursor: every order once, in order, and the last page says so", async () => {
    const first = json(await list("?limit=2"));
    expect(orderIdsOf(first)).toEqual([linus.orderId, grace.orderId]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = json(await list(`?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`));
    expect(orderIdsOf(second)).toEqual([ada.orderId]);
    expect(second.nextCursor).toBeNull();
  });

  it("answers 400 for a forged cursor or a bad filter, 401 without a session, and any member may read", async () => {
    for (const query of ["?cursor=bm90LWEtY3Vyc29y", "?limit=101", "?limit=0", "?status=lost", "?provider=paypal", "?from=-1", "?test=maybe"]) {
      const res = await list(query);
      expect(res.statusCode, query).toBe(400);
      expect(json(res).code, query).toBe("VALIDATION_ERROR");
    }
    expect((await adminCall(t, "GET", "/api/admin/orders")).statusCode).toBe(401);
    const member = await addUser(t, shop.session, "member", [shop.brandId]);
    expect(orderIdsOf(json(await list("", member.session)))).toHaveLength(3);
  });
});

describe("GET /api/admin/orders/:id", () => {
  it("shows line items, customer, payment and commissions of the brand's order; another brand's is 404", async () => {
    const paid = await paidOrder(shop.brandId, { email: "joan@example.com", name: "Joan Clarke" });
    const id = json(await list(`?q=${paid.orderId}`)).orders[0].id;
    const res = await adminCall(t, "GET", `/api/admin/orders/${id}`, { session: shop.session });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({
      id,
      orderId: paid.orderId,
      customerEmail: "joan@example.com",
      lineItems: [{ id: "kit", name: "Espresso kit", quantity: 2, unitPrice: AMOUNT / 2 }],
      upsells: [],
      commissions: [],
    });
    const other = await adminCall(t, "GET", `/api/admin/orders/${id}`, { session: rival.session });
    expect(other.statusCode).toBe(404);
    expect(json(other)).toMatchObject({ error: "Order not found", code: "NOT_FOUND" });
  });
});

describe("GET /api/v1/orders", () => {
  it("lists and shows the key's brand's orders by the merchant's order id; needs orders:read", async () => {
    const paid = await paidOrder(shop.brandId, { email: "alan@example.com" });
    const key = await createApiKey(t, shop.session, { scopes: ["orders:read"] });
    const listed = await t.app.inject({ method: "GET", url: `/api/v1/orders?q=${paid.orderId}`, headers: bearer(key.secret) });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(orderIdsOf(json(listed))).toEqual([paid.orderId]);
    const shown = await t.app.inject({ method: "GET", url: `/api/v1/orders/${paid.orderId}`, headers: bearer(key.secret) });
    expect(json(shown)).toMatchObject({ orderId: paid.orderId, customerEmail: "alan@example.com" });

    const rivalKey = await createApiKey(t, rival.session, { scopes: ["orders:read"] });
    expect((await t.app.inject({ method: "GET", url: `/api/v1/orders/${paid.orderId}`, headers: bearer(rivalKey.secret) })).statusCode).toBe(404);
    expect(orderIdsOf(json(await t.app.inject({ method: "GET", url: `/api/v1/orders?q=${paid.orderId}`, headers: bearer(rivalKey.secret) })))).toEqual([]);

    const writer = await createApiKey(t, shop.session, { scopes: ["checkouts:write"] });
    expect((await t.app.inject({ method: "GET", url: "/api/v1/orders", headers: bearer(writer.secret) })).statusCode).toBe(403);
    expect((await t.app.inject({ method: "GET", url: "/api/v1/orders" })).statusCode).toBe(401);
  });
});

describe("the order's timeline", () => {
  it("shows the order's events oldest first with each webhook delivery's status and attempts, and a resend shows there", async () => {
    const receiver = await startReceiver();
    try {
      const timelineShop = await registerOwner(t);
      const endpoint = await adminCall(t, "POST", "/api/admin/webhooks", { session: timelineShop.session, body: { name: "Shop", url: receiver.url, events: ["*"] } });
      expect(endpoint.statusCode, endpoint.body).toBe(200);
      const paid = await paidOrder(timelineShop.brandId);
      receiver.answer = (request) => ({ status: request.body.includes('"order.confirmed"') ? 500 : 200 });
      await t.app.webhookWorker.deliverDue();

      const listed = json(await list(`?q=${paid.orderId}`, timelineShop.session));
      const detail = json(await adminCall(t, "GET", `/api/admin/orders/${listed.orders[0].id}`, { session: timelineShop.session }));
      expect(detail.timeline.map((e: { type: string }) => e.type)).toEqual(["checkout.created", "checkout.completed", "payment.succeeded", "order.confirmed"]);
      const confirmed = detail.timeline.find((e: { type: string }) => e.type === "order.confirmed");
      expect(confirmed.data).toMatchObject({ orderId: paid.orderId, amount: AMOUNT });
      expect(confirmed.deliveries).toEqual([
        { id: expect.stringMatching(/^msg_/), target: "endpoint", endpointId: json(endpoint).id, url: json(endpoint).url, status: "pending", attempts: 1, lastStatusCode: 500, completedAt: null },
      ]);
      expect(detail.timeline[0].deliveries[0]).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200 });

      // A resend of the delivered checkout.created: the receiver now fails it, and the timeline says so.
      receiver.answer = { status: 503 };
      const created = detail.timeline[0].deliveries[0];
      const resent = await adminCall(t, "POST", `/api/admin/webhooks/deliveries/${created.id}/resend`, { session: timelineShop.session });
      expect(resent.statusCode, resent.body).toBe(200);
      const again = json(await adminCall(t, "GET", `/api/admin/orders/${listed.orders[0].id}`, { session: timelineShop.session }));
      expect(again.timeline[0].deliveries[0]).toMatchObject({ id: created.id, status: "pending", lastStatusCode: 503 });
      // Another brand's order events never show: the rival's own order has only its own.
      const rivalOrder = json(await list("", rival.session)).orders[0];
      const rivalDetail = json(await adminCall(t, "GET", `/api/admin/orders/${rivalOrder.id}`, { session: rival.session }));
      for (const event of rivalDetail.timeline) expect(event.data.orderId).toBe(rivalOrder.orderId);
    } finally {
      await receiver.close();
    }
  });
});
