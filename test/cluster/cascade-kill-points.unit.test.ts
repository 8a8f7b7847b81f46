// SIGKILL inside POST /api/checkout/pay (issue 34, CONTRACT §37 across a cascade): before a provider,
// between the providers of a cascade, after a provider answered and after the commit; the same
// request retried on a healthy instance (after the claim's minute, aged here) asks the same providers
// with the same keys and never charges twice, the declines count once, and the order completes once.
import type pg from "pg";
import { describe, expect, it } from "vitest";
import { ABANDONED_CLAIM_MS } from "../../src/payments/charge-once.js";
import { clusterSkipReason, clusterToken, completeBody, type Cluster } from "./cluster.js";
import { clusterSuite } from "./suite.js";

const skip = clusterSkipReason();
if (skip) console.warn(`test/cluster/cascade-kill-points: ${skip}`);

const AMOUNT = 2000;
const buyer = { customer: { email: "ada@example.com", firstName: "Ada", lastName: "Lovelace" }, billingAddress: { line1: "1 Main St", city: "London", state: "LDN", postalCode: "N1 1AA", country: "GB" } };
const payBody = (orderId: string, cardNumber: string) => ({ orderId, cardNumber, cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123", ...buyer });
const count = async (db: pg.Client, query: string, values: unknown[]) => Number((await db.query(query, values)).rows[0].n);
const charges = (db: pg.Client, orderId: string) =>
  count(db, "select count(*) n from demo_provider_records where order_id = $1 and status = 'succeeded' and kind in ('charge', 'payment_intent')", [orderId]);

/** The default brand allows every provider: the route's first two card-taking providers are tried (a cascade is possible). */
async function initialized(cluster: Cluster, orderId: string) {
  const token = await clusterToken({ orderId, amount: AMOUNT, currency: "USD", productName: "Kit" });
  const init = await cluster.client.request("POST", "/api/checkout/initialize", { instance: 0, body: { token, provider: "vault_gateway_b" } });
  expect(init.status, init.text).toBe(200);
}

/** Kills an instance started with FAULT_POINT=`point` in the middle of `body`'s pay, then ages the claim it left past its minute. */
async function crashIn(cluster: Cluster, db: pg.Client, point: string, body: { orderId: string }) {
  const faulty = await cluster.add({ FAULT_POINT: point });
  let crashed = false;
  try {
    await cluster.client.request("POST", "/api/checkout/pay", { instance: cluster.instances.indexOf(faulty), body });
  } catch {
    crashed = true;
  }
  await faulty.exited;
  cluster.instances.splice(cluster.instances.indexOf(faulty), 1);
  expect(crashed, `${point}: the request was answered instead of crashing the process`).toBe(true);
  expect(faulty.child.signalCode).toBe("SIGKILL");
  await db.query("update order_charges set created_at = created_at - $2::interval where order_id = $1 and state = 'charging'", [body.orderId, `${ABANDONED_CLAIM_MS + 1_000} milliseconds`]);
}

describe.skipIf(skip !== null)("SIGKILL inside a pay, then the same pay again", () => {
  const suite = clusterSuite({ instances: 1 });

  it.each(["charge.before-provider", "charge.after-provider", "charge.after-commit"])("%s: one charge, the retry's answer replayed, the order completed once", async (point) => {
    const { cluster, db } = suite;
    const orderId = `cascade-kill-${point}-${Date.now()}`;
    await initialized(cluster, orderId);
    const body = payBody(orderId, "4242424242424242");
    await crashIn(cluster, db, point, body);

    const retried = await cluster.client.request("POST", "/api/checkout/pay", { instance: 0, body });
    expect(retried.status, retried.text).toBe(200);
    const again = await cluster.client.request("POST", "/api/checkout/pay", { instance: 0, body });
    expect(again.body).toEqual(retried.body);
    expect(await charges(db, orderId)).toBe(1);

    const done = await cluster.client.request("POST", "/api/checkout/complete", {
      instance: 0,
      body: completeBody(orderId, retried.body.transactionId, AMOUNT, { provider: retried.body.provider, providerOrderId: retried.body.providerOrderId }),
    });
    expect(done.status, done.text).toBe(200);
    expect(await count(db, "select count(*) n from orders where order_id = $1", [orderId])).toBe(1);
    expect(await count(db, "select count(*) n from payment_attempts where order_id = $1 and result = 'approved'", [orderId])).toBe(1);
  });

  it("cascade.between-providers: the retry finishes the cascade with the same providers, the declines count once, then a good card pays once", async () => {
    const { cluster, db } = suite;
    const orderId = `cascade-kill-between-${Date.now()}`;
    await initialized(cluster, orderId);
    const declined = payBody(orderId, "4000000000000002");
    await crashIn(cluster, db, "cascade.between-providers", declined);
    const plan = (await db.query("select plan from order_charges where order_id = $1", [orderId])).rows[0].plan;
    expect(plan.providers).toHaveLength(2);

    const retried = await cluster.client.request("POST", "/api/checkout/pay", { instance: 0, body: declined });
    expect(retried.status, retried.text).toBe(402);
    expect(await count(db, "select count(*) n from payment_declines where order_id = $1", [orderId])).toBe(1);
    // One attempt row per provider of the plan, the first recorded by the killed request and not again.
    expect((await db.query("select provider from payment_attempts where order_id = $1 order by cascade_index", [orderId])).rows.map((r) => r.provider)).toEqual(plan.providers);

    const paid = await cluster.client.request("POST", "/api/checkout/pay", { instance: 0, body: payBody(orderId, "4242424242424242") });
    expect(paid.status, paid.text).toBe(200);
    expect(await charges(db, orderId)).toBe(1);
    const done = await cluster.client.request("POST", "/api/checkout/complete", {
      instance: 0,
      body: completeBody(orderId, paid.body.transactionId, AMOUNT, { provider: paid.body.provider, providerOrderId: paid.body.providerOrderId }),
    });
    expect(done.status, done.text).toBe(200);
    expect(await count(db, "select count(*) n from orders where order_id = $1", [orderId])).toBe(1);
  });
});
