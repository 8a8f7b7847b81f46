// /metrics shows each provider circuit (checkout_provider_circuit_state: 0 closed, 1 half-open, 2
// open, per provider, brand and mode) and the attempts by result, as an operator's scraper and the
// CheckoutProviderCircuitOpen alert (deploy/prometheus/alerts.yml) read them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../test/support/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

/** The value of one sample line, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (.+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const got = Object.fromEntries([...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(match[3]);
  }
  return undefined;
}

const scrape = async () => (await t.app.inject({ method: "GET", url: "/metrics" })).body;

describe("checkout_provider_circuit_state", () => {
  it("goes 0 → 2 after the provider's failures, 1 after the open time, 0 after a probe's success; attempts are counted by result", async () => {
    const o = t.deps.orchestration;
    const attempt = (result: "approved" | "declined" | "failed") =>
      o.record({ brandId: "brd_metrics", livemode: false, provider: "intent_gateway", cardBrand: "visa", currency: "USD", result });
    const labels = { provider: "intent_gateway", brand: "brd_metrics", mode: "test" };
    await attempt("declined");
    expect(sample(await scrape(), "checkout_provider_circuit_state", labels)).toBe(0);
    for (let i = 0; i < 5; i++) await attempt("failed");
    const open = await scrape();
    expect(sample(open, "checkout_provider_circuit_state", labels)).toBe(2);
    expect(sample(open, "checkout_provider_attempts_total", { provider: "intent_gateway", mode: "test", result: "failed" })).toBe(5);
    expect(sample(open, "checkout_provider_attempts_total", { provider: "intent_gateway", mode: "test", result: "declined" })).toBe(1);
    expect(await o.available("brd_metrics", false, ["intent_gateway", "vault_gateway_b"])).toEqual(["vault_gateway_b"]);

    t.clock.advance(30_000);
    expect(sample(await scrape(), "checkout_provider_circuit_state", labels)).toBe(1);
    expect(await o.available("brd_metrics", false, ["intent_gateway", "vault_gateway_b"])).toEqual(["intent_gateway", "vault_gateway_b"]);
    await attempt("approved");
    const closed = await scrape();
    expect(sample(closed, "checkout_provider_circuit_state", labels)).toBe(0);
    expect(sample(closed, "checkout_provider_attempts_total", { provider: "intent_gateway", mode: "test", result: "approved" })).toBe(1);
  });
});
