// Provider health and success rates shared through Redis (REDIS_URL): two instances' Orchestration
// objects see one circuit (one instance's failures open it for the other, one probe between both)
// and one aged rate per segment; loading a brand's rates is one round trip; without Redis answering,
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
const settings = { ...ORCHESTRATION_DEFAULTS, successRates: { halfLife: 10, trafficHalfLife: 100, minAttempts: 5 } };

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

  it("shares each segment's aged rate, the same as one process would hold, loaded with one command", async () => {
    const { a, b, brandId, record } = instances();
    // What one process alone holds after the same attempts.
    const alone = createOrchestration({ settings, clock: new ManualClock(0), log });
    const both = async (o: OrchestrationService, result: AttemptResult, provider: (typeof ALL)[number] = "vault_gateway_a") => {
      await record(o, result, provider);
      await alone.record({ brandId, livemode: true, provider, cardBrand: "visa", currency: "USD", result });
    };
    const same = (shared: { rate: number; attempts: number } | null, local: { rate: number; attempts: number } | null) => {
      expect(shared).not.toBeNull();
      expect(shared!.rate).toBeCloseTo(local!.rate, 9);
      expect(shared!.attempts).toBeCloseTo(local!.attempts, 9);
    };
    for (let i = 0; i < 10; i++) await both(i % 2 ? a : b, [3, 6, 9].includes(i) ? "declined" : "approved");
    await both(a, "failed", "vault_gateway_b");
    const lookup = await b.successRates(brandId, true);
    const local = await alone.successRates(brandId, true);
    same(lookup("vault_gateway_a", "visa", "USD"), local("vault_gateway_a", "visa", "USD"));
    same(lookup("vault_gateway_a", null, "USD"), local("vault_gateway_a", null, "USD"));
    expect(lookup("vault_gateway_a", "visa", "USD")!.rate).toBeGreaterThan(0.6);
    expect(lookup("vault_gateway_b", "visa", "USD")).toBeNull();
    // 10 declines in a row: the rate both instances read falls under a third (half-life 10 attempts).
    for (let i = 0; i < 10; i++) await both(i % 2 ? a : b, "declined");
    same((await a.successRates(brandId, true))("vault_gateway_a", "visa", "USD"), (await alone.successRates(brandId, true))("vault_gateway_a", "visa", "USD"));
    expect((await a.successRates(brandId, true))("vault_gateway_a", "visa", "USD")!.rate).toBeLessThan(1 / 3);
    // 200 payments at vault_gateway_b in visa/USD age vault_gateway_a's attempts (traffic half-life 100): a quarter of their weight is left.
    const before = (await b.successRates(brandId, true))("vault_gateway_a", "visa", "USD")!.attempts;
    for (let i = 0; i < 200; i++) await both(i % 2 ? a : b, "approved", "vault_gateway_b");
    const after = (await b.successRates(brandId, true))("vault_gateway_a", "visa", "USD")!;
    expect(after.attempts / before).toBeCloseTo(0.25, 6);
    same(after, (await alone.successRates(brandId, true))("vault_gateway_a", "visa", "USD"));

    // What goes on the wire for one pay request's load: one command.
    const sent: string[] = [];
    const send = clients[0]!.sendCommand.bind(clients[0]!);
    const spy = vi.spyOn(clients[0]!, "sendCommand").mockImplementation((command, stream) => {
      sent.push(command.name);
      return send(command, stream);
    });
    try {
      const lookup = await a.successRates(brandId, true);
      expect(lookup("intent_gateway", "visa", "USD")).toBeNull();
    } finally {
      spy.mockRestore();
    }
    expect(sent).toEqual(["hgetall"]);
  });

  it("keeps the same rates in Redis as in process memory, attempt after attempt", async () => {
    const brandId = newBrand();
    const sizes = { halfLife: 20, trafficHalfLife: 50, minAttempts: 10 };
    const shared = new RedisSuccessRateStore(clients[0]!, sizes);
    const local = new MemorySuccessRateStore(sizes);
    let seed = 7;
    for (let i = 0; i < 300; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      const provider = seed % 5 === 0 ? ("vault_gateway_a" as const) : ("vault_gateway_b" as const);
      const attempt = { brandId, livemode: false, provider, cardBrand: i % 3 ? "visa" : null, currency: "EUR", approved: seed % 100 < 70 };
      await shared.record(attempt);
      await local.record(attempt);
      if (i % 25 === 0 || i === 299) {
        const [fromRedis, fromMemory] = [await shared.load(brandId, false), local.loadNow(brandId, false)];
        expect([...fromRedis.keys()].sort()).toEqual([...fromMemory.keys()].sort());
        for (const [segment, counts] of fromMemory) {
          const got = fromRedis.get(segment)!;
          expect(got.attempts).toBe(counts.attempts);
          expect(got.weight).toBeCloseTo(counts.weight, 9);
          expect(got.rate).toBeCloseTo(counts.rate, 9);
        }
      }
    }
  });

  it("counts atomically: 40 attempts recorded at once by two instances are 40", async () => {
    const brandId = newBrand();
    const long = { ...settings, successRates: { halfLife: 10_000, trafficHalfLife: 1_000_000, minAttempts: 5 } };
    const [a, b] = clients.map((redis) => createOrchestration({ settings: long, clock: new ManualClock(0), log, redis }));
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a! : b!).record({ brandId, livemode: true, provider: "vault_gateway_a", cardBrand: "visa", currency: "USD", result: i < 30 ? "approved" : "declined" })),
    );
    const counters = await clients[0]!.hgetall(`orch:{${brandId}:live}:sra:10000:1000000`);
    expect(counters).toMatchObject({ "vault_gateway_a|visa|USD:n": "40", "vault_gateway_a|*|USD:n": "40", "#visa|USD": "40", "#*|USD": "40" });
    const stat = (await a!.successRates(brandId, true))("vault_gateway_a", "visa", "USD")!;
    expect(stat.rate).toBeCloseTo(0.75, 2);
    expect(stat.attempts).toBeCloseTo(40, 0);
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
      expect((await o.successRates("brd_down", true))("vault_gateway_b", null, "USD")).toMatchObject({ rate: 1 });
      expect((await o.circuitStates()).find((r) => r.provider === "vault_gateway_a")?.value).toBe(2);
      expect(o.guard.isDegraded).toBe(true);
      expect(lines.filter((l) => l.includes("redis unreachable"))).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  });
});
