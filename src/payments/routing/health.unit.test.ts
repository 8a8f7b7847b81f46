// Provider health (issue 34 item 5) in one process (no REDIS_URL): the circuit opens on failures
// within the window, skips the provider while open, lets one probe through after the open time, and
// closes on the probe's success or reopens on its failure. Time is the test's clock.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { ORCHESTRATION_DEFAULTS } from "../../config/orchestration-settings.js";
import { ManualClock } from "../../lib/clock.js";
import { createOrchestration, type AttemptResult } from "./orchestration.js";

const log = pino({ level: "silent" });
const ALL = ["vault_gateway_a", "vault_gateway_b", "intent_gateway"] as const;
const BRAND = "brd_health";

function setup(circuit: Partial<typeof ORCHESTRATION_DEFAULTS.circuit> = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
  const settings = { ...ORCHESTRATION_DEFAULTS, circuit: { ...ORCHESTRATION_DEFAULTS.circuit, ...circuit } };
  const o = createOrchestration({ settings, clock, log });
  const attempt = (result: AttemptResult, provider: (typeof ALL)[number] = "vault_gateway_a", livemode = true) =>
    o.record({ brandId: BRAND, livemode, provider, cardBrand: "visa", currency: "USD", result });
  const available = (livemode = true) => o.available(BRAND, livemode, ALL);
  const stateOf = async (provider: string) => (await o.circuitStates()).find((r) => r.provider === provider && r.mode === "live")?.value;
  return { o, clock, attempt, available, stateOf };
}

describe("provider circuit breaker", () => {
  it("opens after 5 failures within the window and skips the provider; other providers, brands and modes are unaffected", async () => {
    const { o, clock, attempt, available, stateOf } = setup();
    for (let i = 0; i < 4; i++) {
      await attempt("failed");
      clock.advance(5_000);
    }
    expect(await available()).toEqual([...ALL]);
    expect(await stateOf("vault_gateway_a")).toBe(0);
    await attempt("failed");
    expect(await available()).toEqual(["vault_gateway_b", "intent_gateway"]);
    expect(await stateOf("vault_gateway_a")).toBe(2);
    expect(await available(false)).toEqual([...ALL]);
    expect(await o.available("brd_other", true, ALL)).toEqual([...ALL]);
    // Still open just before the open time (30 s) is over.
    clock.advance(29_999);
    expect(await available()).toEqual(["vault_gateway_b", "intent_gateway"]);
  });

  it("does not count declines as failures, and needs half the window's attempts to fail", async () => {
    const { clock, attempt, available } = setup();
    for (let i = 0; i < 20; i++) await attempt("declined");
    for (let i = 0; i < 6; i++) await attempt("failed");
    // 6 failures of 26 attempts: under 50 %.
    expect(await available()).toEqual([...ALL]);
    for (let i = 0; i < 14; i++) await attempt("failed");
    // 20 of 40: open.
    expect(await available()).toEqual(["vault_gateway_b", "intent_gateway"]);
    clock.advance(30_000);
    const { attempt: fresh, available: freshAvailable } = setup();
    for (let i = 0; i < 50; i++) await fresh("declined");
    expect(await freshAvailable()).toEqual([...ALL]);
  });

  it("forgets failures older than the window", async () => {
    const { clock, attempt, available } = setup();
    for (let i = 0; i < 4; i++) await attempt("failed");
    clock.advance(61_000);
    await attempt("failed");
    await attempt("failed");
    expect(await available()).toEqual([...ALL]);
    await attempt("failed");
    await attempt("failed");
    await attempt("failed");
    expect(await available()).toEqual(["vault_gateway_b", "intent_gateway"]);
  });

  it("after the open time lets one probe through at a time: its success closes the circuit", async () => {
    const { clock, attempt, available, stateOf } = setup();
    for (let i = 0; i < 5; i++) await attempt("failed");
    clock.advance(30_000);
    expect(await stateOf("vault_gateway_a")).toBe(1);
    // The first caller takes the probe slot; the next ones skip the provider meanwhile.
    expect(await available()).toEqual([...ALL]);
    expect(await available()).toEqual(["vault_gateway_b", "intent_gateway"]);
    expect(await stateOf("vault_gateway_a")).toBe(1);
    // A decline is the provider answering: closed.
    await attempt("declined");
    expect(await stateOf("vault_gateway_a")).toBe(0);
    expect(await available()).toEqual([...ALL]);
    expect(await available()).toEqual([...ALL]);
    // Closed afresh: the failures before it opened are gone, 4 new ones do not open it.
    for (let i = 0; i < 4; i++) await attempt("failed");
    expect(await available()).toEqual([...ALL]);
  });

  it("reopens when the probe fails, and lets another probe through when one never reports", async () => {
    const { clock, attempt, available, stateOf } = setup();
    for (let i = 0; i < 5; i++) await attempt("failed");
    clock.advance(30_000);
    expect(await available()).toEqual([...ALL]);
    await attempt("failed");
    expect(await stateOf("vault_gateway_a")).toBe(2);
    expect(await available()).toEqual(["vault_gateway_b", "intent_gateway"]);
    clock.advance(30_000);
    expect(await available()).toEqual([...ALL]);
    // That probe never reports (its caller charged another provider first): after the open time another may probe.
    clock.advance(29_000);
    expect(await available()).toEqual(["vault_gateway_b", "intent_gateway"]);
    clock.advance(1_000);
    expect(await available()).toEqual([...ALL]);
    await attempt("approved");
    expect(await stateOf("vault_gateway_a")).toBe(0);
  });

  it("takes its thresholds from the settings", async () => {
    const { attempt, available } = setup({ failureThreshold: 2, failurePercent: 100 });
    await attempt("failed");
    await attempt("approved");
    await attempt("failed");
    expect(await available()).toEqual([...ALL]);
    const strict = setup({ failureThreshold: 2, failurePercent: 100 });
    await strict.attempt("failed");
    await strict.attempt("failed");
    expect(await strict.available()).toEqual(["vault_gateway_b", "intent_gateway"]);
  });

  it("counts attempts by provider, mode and result for /metrics", async () => {
    const { o, attempt } = setup();
    await attempt("approved");
    await attempt("declined");
    await attempt("failed", "intent_gateway", false);
    expect(o.attemptTallies()).toEqual(
      expect.arrayContaining([
        { provider: "vault_gateway_a", mode: "live", result: "approved", count: 1 },
        { provider: "vault_gateway_a", mode: "live", result: "declined", count: 1 },
        { provider: "intent_gateway", mode: "test", result: "failed", count: 1 },
      ]),
    );
  });
});
