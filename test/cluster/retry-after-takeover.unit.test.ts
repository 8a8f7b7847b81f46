// Issue 31 item 1 (CONTRACT §40): an instance dies in the middle of a keyed request; a minute later
// the HTTP reservation of the key is taken over and the same request reaches a healthy instance. The
// retry must answer what the dead request made (the same refund, the same checkout) and never make
// a second: one refund at the provider, pending until the reconciler settles it; one checkout. The
// minute is not waited: the reservation's created_at is moved back, as the clock would have moved.
import { describe, expect, it } from "vitest";
import { callOver, registerOwnerOver } from "../support/live-service.js";
import { clusterSkipReason, completeBody, paidCheckout, type Cluster } from "./cluster.js";
import { clusterSuite } from "./suite.js";

const skip = clusterSkipReason();
if (skip) console.warn(`test/cluster/retry-after-takeover: ${skip}`);

describe.skipIf(skip !== null)("a keyed request retried on another instance after its reservation was taken over", () => {
  const suite = clusterSuite({ instances: 1 });
  const HEALTHY = 0;

  /** An API key of the default brand (the first owner adopts it, and the cluster's checkouts use it). */
  async function apiKey(scopes: string[]): Promise<string> {
    const session = await registerOwnerOver(suite.cluster.urls[HEALTHY]!);
    const created = await callOver(suite.cluster.urls[HEALTHY]!, "POST", "/api/admin/api-keys", { name: "server", scopes }, session);
    expect(created.status).toBe(200);
    return created.body.secret as string;
  }

  /** Sends the request to a new instance armed with `point`, which dies (SIGKILL) in the middle of it. */
  async function diesDuring(cluster: Cluster, point: string, path: string, request: { body: unknown; headers: Record<string, string> }): Promise<void> {
    const faulty = await cluster.add({ FAULT_POINT: point });
    await expect(cluster.client.request("POST", path, { ...request, instance: cluster.instances.indexOf(faulty) })).rejects.toThrow();
    await faulty.exited;
    expect(faulty.child.signalCode).toBe("SIGKILL");
    cluster.instances.splice(cluster.instances.indexOf(faulty), 1);
  }

  /** The minute after which a `running` reservation is taken over (src/http/idempotency.ts), passed. */
  async function takeoverWindowPasses(key: string): Promise<void> {
    const aged = await suite.db.query("update idempotency_keys set created_at = created_at - interval '61 seconds' where key = $1 and state = 'running'", [key]);
    expect(aged.rowCount).toBe(1);
  }

  it("a v1 refund: the retry answers the same refund, pending (202); after the reconciler, succeeded; the provider refunded once", async () => {
    const { cluster, db } = suite;
    const secret = await apiKey(["orders:refund"]);
    const orderId = `takeover-refund-${Date.now()}`;
    const { transactionId } = await paidCheckout(cluster.client, orderId, 1000);
    expect((await cluster.client.request("POST", "/api/checkout/complete", { instance: HEALTHY, body: completeBody(orderId, transactionId, 1000) })).status).toBe(200);
    const key = `refund-${orderId}`;
    const request = { body: { amount: 300, reason: "requested_by_customer" }, headers: { authorization: `Bearer ${secret}`, "idempotency-key": key } };
    const path = `/api/v1/orders/${orderId}/refunds`;

    await diesDuring(cluster, "refund.after-provider", path, request);
    const atProvider = async () => Number((await db.query("select count(*) n from demo_provider_records where kind = 'refund' and order_id = $1", [orderId])).rows[0].n);
    expect(await atProvider()).toBe(1); // the provider refunded before the crash
    const refundsOf = async () => (await db.query("select id, status from refunds where order_id = $1", [orderId])).rows as { id: string; status: string }[];
    const [pending] = await refundsOf();
    expect(pending).toMatchObject({ status: "pending" });

    await takeoverWindowPasses(key);
    const retry = await cluster.client.request("POST", path, { ...request, instance: HEALTHY });
    expect(retry.status, retry.text).toBe(202);
    expect(retry.body.refund).toMatchObject({ id: pending!.id, amount: 300, status: "pending" });
    expect(await atProvider()).toBe(1);

    // The reconciler's grace has passed; a new instance runs its jobs at start.
    await db.query("update refunds set next_attempt_at = now() - interval '1 second' where id = $1", [pending!.id]);
    await cluster.add();
    const deadline = Date.now() + 30_000;
    while ((await refundsOf())[0]!.status === "pending" && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));

    const settled = await cluster.client.request("POST", path, { ...request, instance: HEALTHY });
    expect(settled.status, settled.text).toBe(200);
    expect(settled.body.refund).toMatchObject({ id: pending!.id, amount: 300, status: "succeeded" });
    expect(await refundsOf()).toEqual([{ id: pending!.id, status: "succeeded" }]);
    expect(await atProvider()).toBe(1);
    const refunded = (await db.query("select refunded_cents from orders where order_id = $1 and kind = 'checkout'", [orderId])).rows[0].refunded_cents;
    expect(Number(refunded)).toBe(300);
  }, 120_000);

  it("a v1 checkout: the retry answers the checkout the dead request made (same id, url, token), and there is one", async () => {
    const { cluster, db } = suite;
    const secret = await apiKey(["checkouts:write"]);
    const orderId = `takeover-checkout-${Date.now()}`;
    const key = `checkout-${orderId}`;
    const request = { body: { orderId, amount: 2500, currency: "USD", productName: "Plan" }, headers: { authorization: `Bearer ${secret}`, "idempotency-key": key } };

    await diesDuring(cluster, "merchant-checkout.after-commit", "/api/v1/checkouts", request);
    // The checkout's id (issue 33: one id, chk_…), which the answer names.
    const made = (await db.query("select checkout_id as id, short_code from merchant_checkouts where order_id = $1", [orderId])).rows as { id: string; short_code: string }[];
    expect(made).toHaveLength(1); // committed before the crash

    await takeoverWindowPasses(key);
    const retry = await cluster.client.request("POST", "/api/v1/checkouts", { ...request, instance: HEALTHY });
    expect(retry.status, retry.text).toBe(201);
    expect(retry.body).toMatchObject({ id: made[0]!.id, orderId, shortUrl: expect.stringMatching(new RegExp(`/c/${made[0]!.short_code}$`)) });
    const short = await cluster.client.request("GET", `/c/${made[0]!.short_code}`, { instance: HEALTHY });
    expect(short.headers.get("location")).toBe(`/checkout/${retry.body.token}`);
    expect(Number((await db.query("select count(*) n from merchant_checkouts where order_id = $1", [orderId])).rows[0].n)).toBe(1);
    const again = await cluster.client.request("POST", "/api/v1/checkouts", { ...request, instance: HEALTHY });
    expect(again.body).toEqual(retry.body);
  }, 120_000);
});
