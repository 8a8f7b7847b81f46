// Admission control (issue 20, docs/operations.md "Overload"): beyond capacity new checkouts are refused
// at once with 503 OVERLOADED and Retry-After, while a buyer who started paying is still admitted.
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { orderClaims, post, signToken } from "../../test/support/checkout.js";
import { AMOUNT, card } from "../../test/support/provider-payments.js";
import { testEngine } from "../../test/support/database.js";

const OVERLOADED = { error: "Service busy", code: "OVERLOADED" };

let t: TestApp;
afterEach(async () => t?.close());

async function initialized(): Promise<string> {
  const order = orderClaims({ amount: AMOUNT, currency: "USD" });
  const response = await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider: "vault_gateway_b" });
  expect(response.statusCode, response.body).toBe(200);
  return order.orderId as string;
}

const pay = (orderId: string) => post(t, "/api/providers/vault_gateway_b/process-payment", { orderId, amount: AMOUNT, ...card() });

/** The requests that start a checkout, each refused the same way. */
async function newCheckoutRequests() {
  const token = await signToken(t, orderClaims());
  return [
    await timed(() => post(t, "/api/checkout/initialize", { token, provider: "vault_gateway_b" })),
    await timed(() => post(t, "/api/token/generate", { amount: 1000, currency: "USD" })),
    await timed(() => post(t, "/api/v1/checkouts", { orderId: "o-1", amount: 1000, currency: "USD" }, { authorization: "Bearer sk_whatever" })),
    await timed(() => t.app.inject({ method: "GET", url: "/c/abc123" })),
  ];
}

async function timed<T>(request: () => Promise<T>): Promise<{ response: T; ms: number }> {
  const started = performance.now();
  const response = await request();
  return { response, ms: performance.now() - started };
}

function metric(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(name));
  return line ? Number(line.split(" ").pop()) : NaN;
}

describe.runIf(testEngine === "postgres")("admission by the database pool's queue", () => {
  it("refuses new checkouts at once while the pool is held busy, still admits a started payment, and sheds nothing once the queue is gone", async () => {
    t = await buildTestApp({ env: { ADMISSION_NEW_POOL_WAIT_MS: "100" } });
    const [first, second] = [await initialized(), await initialized()];
    const pool = t.deps.database.pool!;
    // Every connection of the app's pool (5 in tests) held by real work that takes its time.
    const held = await Promise.all(Array.from({ length: pool.options.max }, () => pool.connect()));
    const sleeping = held.map((client) => client.query("select pg_sleep(0.6)"));
    let released = false;
    const release = () => {
      if (!released) held.forEach((client) => client.release());
      released = true;
    };
    try {
      const queuedPay = pay(first);
      while (t.deps.database.poolQueue!().oldestWaitMs < 150) await sleep(10);

      for (const { response, ms } of await newCheckoutRequests()) {
        expect(response.statusCode, response.body).toBe(503);
        expect(json(response)).toEqual(OVERLOADED);
        expect(response.headers["retry-after"]).toBe("1");
        // Answered without waiting for the pool (whose timeout is 5 s); 50 ms on an idle machine.
        expect(ms).toBeLessThan(400);
      }
      // A buyer already paying, at the same moment: admitted, and served once connections are free.
      const secondPay = pay(second);
      await Promise.all(sleeping);
      release();
      for (const response of [await queuedPay, await secondPay]) {
        expect(response.statusCode, response.body).toBe(200);
        expect(json(response).success).toBe(true);
      }
    } finally {
      await Promise.allSettled(sleeping);
      release();
    }

    // Below the threshold nothing is refused.
    await initialized();
    const metrics = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(metric(metrics, 'admission_refused_total{class="new"}')).toBe(4);
    expect(metric(metrics, 'admission_refused_total{class="started"}')).toBe(0);
    expect(metric(metrics, "admission_pool_oldest_wait_seconds")).toBe(0);
  });
});

describe("admission by event-loop delay", () => {
  it("refuses new checkouts while the event loop lags beyond its threshold, admits the rest, and recovers", async () => {
    t = await buildTestApp({ env: { ADMISSION_NEW_LOOP_DELAY_MS: "100" } });
    await initialized();
    // The process busy for 1.5 s in 150-ms slices: every timer of the window fires late.
    const until = performance.now() + 1_500;
    while (performance.now() < until) {
      const slice = performance.now() + 150;
      while (performance.now() < slice);
      await new Promise((resolve) => setImmediate(resolve));
    }
    for (const { response } of await newCheckoutRequests()) {
      expect(response.statusCode, response.body).toBe(503);
      expect(json(response)).toEqual(OVERLOADED);
    }
    // A started flow's read (an unknown session: 404) and the probes are still served.
    expect((await t.app.inject({ method: "GET", url: "/api/upsell/session/ups_missing" })).statusCode).toBe(404);
    expect((await t.app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
    const metrics = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
    expect(metric(metrics, 'admission_refused_total{class="new"}')).toBe(4);
    expect(metric(metrics, "admission_event_loop_delay_seconds")).toBeGreaterThanOrEqual(0.1);

    // Two quiet windows later the loop is on time again: new checkouts are admitted.
    await sleep(1_100);
    await initialized();
  });
});
