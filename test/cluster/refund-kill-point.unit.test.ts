// Issue 17: a refund is exactly once against the provider even when the process dies between the
// provider's answer and our commit (FAULT_POINT=refund.after-provider). The refund stays pending;
// once its grace has passed the refund reconciler of a live instance asks the provider again with
// the same idempotency key and settles it: one refund at the provider, one event, the total right.
import { describe, expect, it } from "vitest";
import { callOver, registerOwnerOver } from "../support/live-service.js";
import { clusterSkipReason, completeBody, paidCheckout } from "./cluster.js";
import { clusterSuite } from "./suite.js";

const skip = clusterSkipReason();
if (skip) console.warn(`test/cluster/refund-kill-point: ${skip}`);

describe.skipIf(skip !== null)("SIGKILL after the provider refunded", () => {
  const suite = clusterSuite({ instances: 1 });

  it("leaves the refund pending, and the reconciler settles it once from the provider's answer", async () => {
    const { cluster, db } = suite;
    const base = cluster.urls[0]!;
    const session = await registerOwnerOver(base); // the first owner adopts the default brand, which the checkouts use
    const orderId = `refund-kill-${Date.now()}`;
    const { transactionId } = await paidCheckout(cluster.client, orderId, 3000);
    expect((await callOver(base, "POST", "/api/checkout/complete", completeBody(orderId, transactionId, 3000))).status).toBe(200);
    const listed = await callOver(base, "GET", `/api/admin/orders?q=${orderId}`, undefined, session);
    const order = listed.body.orders[0] as { id: string };

    const faulty = await cluster.add({ FAULT_POINT: "refund.after-provider" });
    await expect(callOver(faulty.baseUrl, "POST", `/api/admin/orders/${order.id}/refunds`, { amount: 1200, reason: "requested_by_customer" }, session)).rejects.toThrow();
    await faulty.exited;
    cluster.instances.splice(cluster.instances.indexOf(faulty), 1);

    const refundsOf = async () => (await db.query("select id, status, attempts from refunds where order_ref = $1", [order.id])).rows;
    const [pending] = await refundsOf();
    expect(pending).toMatchObject({ status: "pending", attempts: 0 });
    const atProvider = async () => Number((await db.query("select count(*) n from demo_provider_records where kind = 'refund' and order_id = $1", [orderId])).rows[0].n);
    expect(await atProvider()).toBe(1); // the provider refunded before the crash

    // The grace (RECONCILE_AFTER_MS) has passed; a new instance runs its jobs at start.
    await db.query("update refunds set next_attempt_at = now() - interval '1 second' where id = $1", [pending.id]);
    await cluster.add();
    const deadline = Date.now() + 30_000;
    while ((await refundsOf())[0].status === "pending" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));

    expect(await refundsOf()).toEqual([expect.objectContaining({ id: pending.id, status: "succeeded" })]);
    expect(await atProvider()).toBe(1);
    const refunded = (await db.query("select refunded_cents from orders where id = $1", [order.id])).rows[0].refunded_cents;
    expect(Number(refunded)).toBe(1200);
    const events = (await db.query("select count(*) n from outbox_events where type = 'refund.succeeded' and payload->>'refundId' = $1", [pending.id])).rows[0].n;
    expect(Number(events)).toBe(1);
    const detail = await callOver(base, "GET", `/api/admin/orders/${order.id}`, undefined, session);
    expect(detail.body.refunds).toEqual([expect.objectContaining({ id: pending.id, status: "succeeded", amount: 1200 })]);
  }, 90_000);
});
