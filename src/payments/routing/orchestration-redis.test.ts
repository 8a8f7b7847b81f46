// Provider health and success rates shared through Redis (REDIS_URL): two instances' Orchestration
// objects see one circuit (one instance's failures open it for the other, one probe between both)
// and one window per segment; loading a brand's rates is one round trip; without Redis answering,
// each keeps counting in its own memory and no call throws.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ORCHESTRATION_DEFAULTS } from "../../config/orchestration-settings.js";
import { ManualClock } from "../../lib/clock.js";
import { createOrchestration, type AttemptResult, type OrchestrationService } from "./orchestration.js";
import { MemorySuccessRateStore, RedisSuccessRateStore } from "./success-rates.js";

const REDIS_URL = process.env.REDIS_URL;
const log = pino({ level: "silent" });
const ALL = ["vault_gateway_a", "vault_gateway_b"] as const;
const settings = { ...ORCHESTRATION_DEFAULTS, successRates: { window: 20, minAttempts: 5 } };

describe.skipIf(!REDIS_URL)("Orchestration shared through Redis", () => {
  const clients: Redis[] = [];
  beforeAll(() => {
    // Two instances: each its own client, as each process has.
    for (let i = 0; i < 2; i++) clients.push(new Redis(REDIS_URL!, { enableOfflineQueue: true, maxRetriesPerRequest: 1, commandTimeout: 2_000 }));
  });
  const brands: string[] = [];
  const newBrand = () => {
    const brandId = `brd_${randomBytes(6).toString("hex")}`;
    brands.push(brandId);
    return brandId;
  };
  afterAll(async () => {
    for (const brandId of brands) {
      const keys = await clients[0]!.keys(`orch:{${brandId}:*`);
      if (keys.length) await clients[0]!.del(...keys);
    }
    for (const c of clients) c.disconnect();
  });

  function instances() {
    const clock = new ManualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
    const [a, b] = clients.map((redis) => createOrchestration({ settings, clock, log, redis })) as [OrchestrationService, OrchestrationService];
    const brandId = newBrand();
    const record = (o: OrchestrationService, result: AttemptResult, provider: (typeof ALL)[number] = "vault_gateway_a") =>
      o.record({ brandId, livemode: true, provider, cardBrand: "visa", currency: "USD", result });
    return { clock, a, b, brandId, record };
  }

  it("one instance's failures open the circuit for the other; one probe passes between both; its success closes it for both", async () => {
    const { clock, a, b, brandId, record } = instances();
    for (let i = 0; i < 4; i++) await record(a, "failed");
    expect(await b.available(brandId, true, ALL)).toEqual([...ALL]);
    await record(a, "failed");
    expect(await b.available(brandId, true, ALL)).toEqual(["vault_gateway_b"]);
    expect(await a.available(brandId, true, ALL)).toEqual(["vault_gateway_b"]);
    expect(await b.available(brandId, false, ALL)).toEqual([...ALL]);
    expect((await b.circuitStates()).find((r) => r.provider === "vault_gateway_a" && r.mode === "live")).toEqual({ provider: "vault_gateway_a", brand: brandId, mode: "live", value: 2 });

    clock.advance(30_000);
    const probes = await Promise.all([a.available(brandId, true, ALL), b.available(brandId, true, ALL), a.available(brandId, true, ALL), b.available(brandId, true, ALL)]);
    expect(probes.filter((p) => p.includes("vault_gateway_a"))).toHaveLength(1);
    expect((await a.circuitStates()).find((r) => r.provider === "vault_gateway_a" && r.mode === "live")?.value).toBe(1);
    await record(b, "approved");
    expect(await a.available(brandId, true, ALL)).toEqual([...ALL]);
    expect((await a.circuitStates()).find((r) => r.provider === "vault_gateway_a" && r.mode === "live")?.value).toBe(0);
    expect(a.guard.fallbackCount + b.guard.fallbackCount).toBe(0);
  });

  it("a failed probe reopens it for both", async () => {
    const { clock, a, b, brandId, record } = instances();
    for (let i = 0; i < 5; i++) await record(i % 2 ? a : b, "failed");
    clock.advance(30_000);
    expect(await a.available(brandId, true, ALL)).toEqual([...ALL]);
    await record(a, "failed");
    clock.advance(29_000);
    expect(await b.available(brandId, true, ALL)).toEqual(["vault_gateway_b"]);
    clock.advance(1_000);
    expect(await b.available(brandId, true, ALL)).toEqual([...ALL]);
  });

  it("shares each segment's window, loaded with one command", async () => {
    const { a, b, brandId, record } = instances();
    // 7 approved of 10, spread over the window (no change between its older and recent attempts).
    for (let i = 0; i < 10; i++) await record(i % 2 ? a : b, [3, 6, 9].includes(i) ? "declined" : "approved");
    await record(a, "failed", "vault_gateway_b");
    const lookup = await b.successRates(brandId, true);
    expect(lookup("vault_gateway_a", "visa", "USD")).toEqual({ rate: 0.7, attempts: 10 });
    expect(lookup("vault_gateway_a", null, "USD")).toEqual({ rate: 0.7, attempts: 10 });
    expect(lookup("vault_gateway_b", "visa", "USD")).toBeNull();
    // The window of 20 slides: 20 approvals push the 10 earlier attempts out.
    for (let i = 0; i < 20; i++) await record(i % 2 ? a : b, "approved");
    expect((await a.successRates(brandId, true))("vault_gateway_a", "visa", "USD")).toEqual({ rate: 1, attempts: 20 });
    await record(a, "declined");
    for (let i = 0; i < 4; i++) await record(b, "approved");
    expect((await b.successRates(brandId, true))("vault_gateway_a", "visa", "USD")).toEqual({ rate: 0.95, attempts: 20 });
    // 5 declines in a row: the recent attempts stand from the older ones, a change.
    for (let i = 0; i < 5; i++) await record(i % 2 ? a : b, "declined");
    expect((await a.successRates(brandId, true))("vault_gateway_a", "visa", "USD")).toEqual({ rate: 0, attempts: 5 });

    // What goes on the wire for one pay request's load: one command.
    const sent: string[] = [];
    const send = clients[0]!.sendCommand.bind(clients[0]!);
    const spy = vi.spyOn(clients[0]!, "sendCommand").mockImplementation((command, stream) => {
      sent.push(command.name);
      return send(command, stream);
    });
    try {
      const lookup = await a.successRates(brandId, true);
      expect(lookup("vault_gateway_b", "visa", "USD")).toBeNull();
    } finally {
      spy.mockRestore();
    }
    expect(sent).toEqual(["hgetall"]);
  });

  it("keeps the same counts in Redis as in process memory, attempt after attempt", async () => {
    const brandId = newBrand();
    const sizes = { window: 50, minAttempts: 10 };
    const shared = new RedisSuccessRateStore(clients[0]!, sizes);
    const local = new MemorySuccessRateStore(sizes);
    let seed = 7;
    for (let i = 0; i < 300; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const attempt = { brandId, livemode: false, provider: "vault_gateway_b" as const, cardBrand: i % 3 ? "visa" : null, currency: "EUR", approved: seed % 100 < 70 };
      await shared.record(attempt);
      await local.record(attempt);
      if (i % 25 === 0 || i === 299) expect(await shared.load(brandId, false)).toEqual(local.loadNow(brandId, false));
    }
  });

  it("counts atomically: 40 attempts recorded at once by two instances are 40 in the window", async () => {
    const brandId = newBrand();
    const wide = { ...settings, successRates: { window: 100, minAttempts: 5 } };
    const [a, b] = clients.map((redis) => createOrchestration({ settings: wide, clock: new ManualClock(0), log, redis }));
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a! : b!).record({ brandId, livemode: true, provider: "vault_gateway_a", cardBrand: "visa", currency: "USD", result: i < 30 ? "approved" : "declined" })),
    );
    const counters = await clients[0]!.hgetall(`orch:{${brandId}:live}:sr:100:5`);
    expect(counters).toMatchObject({ "vault_gateway_a|visa|USD:n": "40", "vault_gateway_a|visa|USD:ok": "30", "vault_gateway_a|*|USD:n": "40", "vault_gateway_a|*|USD:ok": "30" });
  });
});

describe("Orchestration when Redis does not answer", () => {
  it("counts in this process, never throws, and logs the outage once", async () => {
    const lines: string[] = [];
    const sink = pino({ level: "warn" }, { write: (line: string) => void lines.push(line) });
    // Nothing listens on port 1: every command fails at once.
    const redis = new Redis("redis://127.0.0.1:1", { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    redis.on("error", () => {});
    try {
      const clock = new ManualClock(Date.UTC(2026, 10, 28, 12, 0, 0));
      const o = createOrchestration({ settings, clock, log: sink, redis });
      for (let i = 0; i < 5; i++) await o.record({ brandId: "brd_down", livemode: true, provider: "vault_gateway_a", cardBrand: null, currency: "USD", result: "failed" });
      expect(await o.available("brd_down", true, ALL)).toEqual(["vault_gateway_b"]);
      for (let i = 0; i < 5; i++) await o.record({ brandId: "brd_down", livemode: true, provider: "vault_gateway_b", cardBrand: null, currency: "USD", result: "approved" });
      expect((await o.successRates("brd_down", true))("vault_gateway_b", null, "USD")).toEqual({ rate: 1, attempts: 5 });
      expect((await o.circuitStates()).find((r) => r.provider === "vault_gateway_a")?.value).toBe(2);
      expect(o.guard.isDegraded).toBe(true);
      expect(lines.filter((l) => l.includes("redis unreachable"))).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  });
});
