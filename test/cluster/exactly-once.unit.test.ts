// Exactly once under fire (CONTRACT §7): 50 concurrent duplicates of `complete`, of an upsell
// `accept` and of an action link, spread round-robin over two real processes on one PostgreSQL and
// one Redis → one order, one charge, one commission and one set of outbox events each.
import { describe, expect, it } from "vitest";
import { clusterSkipReason, completeBody, paidCheckout } from "./cluster.js";
import { clusterSuite } from "./suite.js";

const skip = clusterSkipReason();
if (skip) console.warn(`test/cluster/exactly-once: ${skip}`);

const DUPLICATES = 50;

describe.skipIf(skip !== null)("exactly once across two instances", () => {
  const suite = clusterSuite({ instances: 2 });
  const count = async (query: string, values: unknown[]) => Number((await suite.db.query(query, values)).rows[0].n);

  it("50 duplicates each of complete, accept and an action link: one order, charge, commission and event set each", async () => {
    const { cluster, db } = suite;
    const orderId = `fire-${Date.now()}`;
    const { transactionId } = await paidCheckout(cluster.client, orderId);
    const salesAttribution = { salespersonId: "sp_fire", salespersonName: "Sam", commissionRate: 0.1 };

    const completes = await Promise.all(
      Array.from({ length: DUPLICATES }, () => cluster.client.request("POST", "/api/checkout/complete", { body: completeBody(orderId, transactionId, 4999, { salesAttribution }) })),
    );
    expect(new Set(completes.map((r) => r.instance))).toEqual(new Set([0, 1]));
    expect(completes.map((r) => r.status)).toEqual(Array(DUPLICATES).fill(200));
    for (const r of completes) expect(r.body).toEqual(completes[0].body);
    const { paymentMethodToken, commissionId } = completes[0].body;
    expect(commissionId).toEqual(expect.any(String));

    const created = await cluster.client.request("POST", "/api/upsell/create-session", {
      body: {
        orderId: `${orderId}-up`,
        originalOrderId: orderId,
        customerEmail: "ada@example.com",
        paymentMethodToken,
        provider: "vault_gateway_b",
        offers: [
          { id: "a", name: "Offer a", price: 1500 },
          { id: "b", name: "Offer b", price: 2500 },
        ],
      },
    });
    expect(created.status, created.text).toBe(200);
    const sessionId = created.body.sessionId as string;

    const accepts = await Promise.all(Array.from({ length: DUPLICATES }, () => cluster.client.request("POST", "/api/upsell/accept", { body: { sessionId, offerId: "a" } })));
    expect(new Set(accepts.map((r) => r.instance))).toEqual(new Set([0, 1]));
    expect(accepts.map((r) => r.status)).toEqual(Array(DUPLICATES).fill(200));
    for (const r of accepts) expect(r.body).toEqual(accepts[0].body);
    expect(accepts[0].body).toMatchObject({ offerAccepted: "a", amountCharged: 1500, hasMoreOffers: true });

    // The action link acts on the current offer (b); every duplicate is a redirect, only one charges.
    const links = await Promise.all(
      Array.from({ length: DUPLICATES }, () =>
        cluster.client.request("POST", `/upsell/action/accept/${sessionId}`, { headers: { "content-type": "application/x-www-form-urlencoded" }, body: undefined }),
      ),
    );
    expect(links.map((r) => r.status)).toEqual(Array(DUPLICATES).fill(303));
    const session = await cluster.client.request("GET", `/api/upsell/session/${sessionId}`);
    expect(session.body.session).toMatchObject({ acceptedOffers: ["a", "b"], totalUpsellAmount: 4000 });

    // What a user would notice: one of each in the shared database.
    expect(await count("select count(*) n from orders where order_id = $1", [orderId])).toBe(1);
    expect(await count("select count(*) n from orders where order_id = $1", [`${orderId}-up`])).toBe(2);
    expect(await count("select count(*) n from commissions where order_id = $1", [orderId])).toBe(1);
    // Charges at the (demo) provider: the checkout's payment and one per accepted offer.
    expect(await count("select count(*) n from demo_provider_records where order_id = $1", [`${orderId}-up`])).toBe(2);
    const events = await db.query(
      `select type, count(*)::int n from outbox_events where payload->>'orderId' in ($1, $2) or payload->>'sessionId' = $3 group by type order by type`,
      [orderId, `${orderId}-up`, sessionId],
    );
    const byType = Object.fromEntries(events.rows.map((r) => [r.type, r.n]));
    expect(byType).toMatchObject({ "checkout.completed": 1, "order.confirmed": 1, "upsell.accepted": 2 });
    // No event written twice: every (type, payload) pair is unique.
    const duplicated = await db.query(
      `select type, payload::text, count(*) n from outbox_events where payload->>'orderId' in ($1, $2) or payload->>'sessionId' = $3 group by type, payload::text having count(*) > 1`,
      [orderId, `${orderId}-up`, sessionId],
    );
    expect(duplicated.rows).toEqual([]);
  });
});
