// One crash-and-retry iteration at a named point (src/lib/fault-points.ts), shared by the short test
// and `npm run soak`: an instance started with FAULT_POINT dies (SIGKILL) in the middle of a request,
// the client retries the same request on a healthy instance and must get the original result, with
// one order, one charge and one event in the database.
import type pg from "pg";
import type { FaultPoint } from "../../src/lib/fault-points.js";
import { ABANDONED_CLAIM_MS } from "../../src/payments/charge-once.js";
import { completeBody, paidCheckout, type Cluster } from "./cluster.js";

export type RequestPoint = Exclude<FaultPoint, "webhook.before-send" | "refund.after-provider" | "merchant-checkout.after-commit">;
export const REQUEST_POINTS: RequestPoint[] = ["charge.before-provider", "charge.after-provider", "charge.after-commit", "complete.after-commit"];

const count = async (db: pg.Client, query: string, values: unknown[]) => Number((await db.query(query, values)).rows[0].n);

function check(condition: boolean, message: string): void {
  if (!condition) throw new Error(message);
}

/**
 * Runs one iteration against `cluster` (instance `healthy` stays up) and throws on any difference
 * from exactly-once. Returns how long the crashed request took to fail and the retry to succeed.
 */
export async function crashAndRetry(cluster: Cluster, healthy: number, point: RequestPoint, db: pg.Client, tag: string): Promise<{ retryMs: number }> {
  const client = cluster.client;
  const orderId = `kill-${tag}`;
  const { transactionId } = await paidCheckout(client, orderId, 2000);
  let request: { path: string; body: unknown };
  if (point === "complete.after-commit") {
    request = { path: "/api/checkout/complete", body: completeBody(orderId, transactionId, 2000) };
  } else {
    const done = await client.request("POST", "/api/checkout/complete", { instance: healthy, body: completeBody(orderId, transactionId, 2000) });
    check(done.status === 200, `complete ${done.status} ${done.text}`);
    const created = await client.request("POST", "/api/upsell/create-session", {
      instance: healthy,
      body: { orderId: `${orderId}-up`, originalOrderId: orderId, customerEmail: "ada@example.com", paymentMethodToken: done.body.paymentMethodToken, provider: "vault_gateway_b", offers: [{ id: "a", name: "Offer a", price: 1500 }] },
    });
    check(created.status === 200, `create-session ${created.status} ${created.text}`);
    request = { path: "/api/upsell/accept", body: { sessionId: created.body.sessionId, offerId: "a" } };
  }

  const faulty = await cluster.add({ FAULT_POINT: point });
  const index = cluster.instances.indexOf(faulty);
  let crashed = false;
  try {
    await client.request("POST", request.path, { instance: index, body: request.body });
  } catch {
    crashed = true;
  }
  await faulty.exited;
  cluster.instances.splice(cluster.instances.indexOf(faulty), 1);
  check(crashed, `${point}: the request was answered instead of crashing the process`);
  check(faulty.child.signalCode === "SIGKILL", `${point}: the process ended with ${faulty.child.exitCode ?? faulty.child.signalCode}, not SIGKILL`);
  if (point === "charge.before-provider" || point === "charge.after-provider") {
    // The killed accept left its claim on the offer, which holds it for a minute (a retry meanwhile
    // answers 409 in progress: src/upsell/charge-offer.test.ts). That minute passes here.
    const aged = await db.query("update upsell_offer_results set created_at = created_at - $2::interval where session_id = $1 and decision = 'pending'", [
      (request.body as { sessionId: string }).sessionId,
      `${ABANDONED_CLAIM_MS + 1_000} milliseconds`,
    ]);
    check(aged.rowCount === 1, `${point}: the killed accept left no claim on the offer`);
  }

  const started = Date.now();
  const retried = await client.request("POST", request.path, { instance: healthy, body: request.body });
  const retryMs = Date.now() - started;
  check(retried.status === 200, `${point}: retry answered ${retried.status} ${retried.text}`);
  const again = await client.request("POST", request.path, { instance: healthy, body: request.body });
  check(JSON.stringify(again.body) === JSON.stringify(retried.body), `${point}: a second retry answered differently: ${again.text} vs ${retried.text}`);

  check((await count(db, "select count(*) n from orders where order_id = $1", [orderId])) === 1, `${point}: not exactly one checkout order`);
  if (point !== "complete.after-commit") {
    const upsellOrder = `${orderId}-up`;
    check(retried.body.offerAccepted === "a" && retried.body.amountCharged === 1500, `${point}: unexpected accept result ${retried.text}`);
    check((await count(db, "select count(*) n from orders where order_id = $1", [upsellOrder])) === 1, `${point}: not exactly one upsell order`);
    check((await count(db, "select count(*) n from demo_provider_records where order_id = $1", [upsellOrder])) === 1, `${point}: not exactly one charge`);
    check((await count(db, "select count(*) n from outbox_events where type = 'upsell.accepted' and payload->>'orderId' = $1", [upsellOrder])) === 1, `${point}: not exactly one upsell.accepted event`);
  } else {
    check(retried.body.orderId === orderId && retried.body.transactionId === transactionId, `${point}: unexpected complete result ${retried.text}`);
    check((await count(db, "select count(*) n from outbox_events where type = 'checkout.completed' and payload->>'orderId' = $1", [orderId])) === 1, `${point}: not exactly one checkout.completed event`);
  }
  return { retryMs };
}
