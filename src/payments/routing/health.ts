// Provider health (issue 34 item 5): a circuit breaker per provider × brand × mode, shared by every
// instance through Redis when REDIS_URL is set, else kept in this process (docs/orchestration.md
// "Provider health").
//
// closed ──(threshold of failures within the window)──▶ open ──(open time passed: one caller takes
// the probe slot)──▶ half-open ──(the probe approved or declined)──▶ closed
//                                                    └──(the probe failed)──▶ open again
//
// Only failures count against a provider: timeouts, 5xx and unreachable (AttemptResult "failed").
// A decline is the provider working: it counts as an attempt, never as a failure.
import type { Redis } from "ioredis";
import type { CircuitSettings } from "../../config/orchestration-settings.js";
import type { PaymentProviderType } from "../../providers/types.js";

export type CircuitState = "closed" | "half_open" | "open";
/** checkout_provider_circuit_state's values. */
export const CIRCUIT_STATE_VALUE: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

/** The window is counted in this many steps (a failure leaves the window within one step's time of its age passing the window). */
export const WINDOW_STEPS = 10;

export interface CircuitRef {
  brandId: string;
  livemode: boolean;
  provider: PaymentProviderType;
}

/** Where circuits live: Redis (shared) or this process (RedisFallback's meanwhile, and no REDIS_URL). */
export interface CircuitStore {
  /** For each provider, whether this caller may use it: closed, or the half-open probe slot it just took. */
  admit(brandId: string, livemode: boolean, providers: readonly PaymentProviderType[], now: number): Promise<boolean[]>;
  /** Counts one attempt; answers the circuit's state after it. */
  record(ref: CircuitRef, failed: boolean, now: number): Promise<CircuitState>;
  /** The circuits' states as a caller would meet them now (open past its time: half-open, a probe may pass). */
  states(refs: readonly CircuitRef[], now: number): Promise<CircuitState[]>;
}

export const modeOf = (livemode: boolean) => (livemode ? "live" : "test");
/** Every key of one brand and mode shares a Redis Cluster slot (the braces), so one script may touch them all. */
export const redisPrefix = (brandId: string, livemode: boolean) => `orch:{${brandId}:${modeOf(livemode)}}`;
const circuitKey = (ref: CircuitRef) => `${redisPrefix(ref.brandId, ref.livemode)}:cb:${ref.provider}`;

/** A circuit nobody touched for this long is forgotten (closed): the window and two open periods. */
const idleMs = (s: CircuitSettings) => s.windowMs + 2 * s.openMs;
const stepMs = (s: CircuitSettings) => s.windowMs / WINDOW_STEPS;
const trips = (s: CircuitSettings, failures: number, attempts: number) => failures >= s.failureThreshold && failures * 100 >= s.failurePercent * attempts;

interface MemoryCircuit {
  state: "c" | "o" | "h";
  /** open: until when it skips the provider; half-open: until when the probe holds its slot. */
  until: number;
  /** step index → attempts and failures in it. */
  steps: Map<number, { attempts: number; failures: number }>;
  touched: number;
}

/** The circuits of this process. */
export class MemoryCircuitStore implements CircuitStore {
  private circuits = new Map<string, MemoryCircuit>();
  constructor(private settings: CircuitSettings) {}

  private get(ref: CircuitRef, now: number): MemoryCircuit {
    const key = circuitKey(ref);
    let circuit = this.circuits.get(key);
    if (!circuit || now - circuit.touched > idleMs(this.settings)) {
      circuit = { state: "c", until: 0, steps: new Map(), touched: now };
      this.circuits.set(key, circuit);
    }
    return circuit;
  }

  async admit(brandId: string, livemode: boolean, providers: readonly PaymentProviderType[], now: number): Promise<boolean[]> {
    return providers.map((provider) => {
      const circuit = this.get({ brandId, livemode, provider }, now);
      if (circuit.state === "c") return true;
      if (now < circuit.until) return false;
      // Open past its time, or a probe that never reported: this caller probes.
      circuit.state = "h";
      circuit.until = now + this.settings.openMs;
      circuit.touched = now;
      return true;
    });
  }

  async record(ref: CircuitRef, failed: boolean, now: number): Promise<CircuitState> {
    const s = this.settings;
    const circuit = this.get(ref, now);
    circuit.touched = now;
    if (circuit.state === "h") {
      if (failed) {
        circuit.state = "o";
        circuit.until = now + s.openMs;
        return "open";
      }
      circuit.state = "c";
      circuit.until = 0;
      circuit.steps.clear();
      return "closed";
    }
    // Open: what attempts begun before it opened answer now does not matter.
    if (circuit.state === "o") return now < circuit.until ? "open" : "half_open";
    const step = Math.floor(now / stepMs(s));
    const counts = circuit.steps.get(step) ?? { attempts: 0, failures: 0 };
    counts.attempts++;
    if (failed) counts.failures++;
    circuit.steps.set(step, counts);
    let attempts = 0;
    let failures = 0;
    for (const [index, c] of circuit.steps) {
      if (index <= step - WINDOW_STEPS) circuit.steps.delete(index);
      else {
        attempts += c.attempts;
        failures += c.failures;
      }
    }
    if (!trips(s, failures, attempts)) return "closed";
    circuit.state = "o";
    circuit.until = now + s.openMs;
    circuit.steps.clear();
    return "open";
  }

  async states(refs: readonly CircuitRef[], now: number): Promise<CircuitState[]> {
    return refs.map((ref) => {
      const circuit = this.circuits.get(circuitKey(ref));
      if (!circuit || now - circuit.touched > idleMs(this.settings) || circuit.state === "c") return "closed";
      return circuit.state === "o" && now < circuit.until ? "open" : "half_open";
    });
  }
}

// The same rules in Redis, one script per operation (one round trip each). A circuit is a hash:
// st (c/o/h), until (ms), a<step>/f<step> (attempts/failures of a step of the window).
const ADMIT_SCRIPT = `local now = tonumber(ARGV[1])
local openMs = tonumber(ARGV[2])
local idle = tonumber(ARGV[3])
local out = {}
for i, key in ipairs(KEYS) do
  local st = redis.call('HGET', key, 'st')
  if not st or st == 'c' then
    out[i] = 1
  elseif now < tonumber(redis.call('HGET', key, 'until') or '0') then
    out[i] = 0
  else
    redis.call('HSET', key, 'st', 'h', 'until', now + openMs)
    redis.call('PEXPIRE', key, idle)
    out[i] = 1
  end
end
return out`;

const RECORD_SCRIPT = `local key = KEYS[1]
local now = tonumber(ARGV[1])
local failed = ARGV[2] == '1'
local stepMs = tonumber(ARGV[3])
local steps = tonumber(ARGV[4])
local threshold = tonumber(ARGV[5])
local percent = tonumber(ARGV[6])
local openMs = tonumber(ARGV[7])
local idle = tonumber(ARGV[8])
local st = redis.call('HGET', key, 'st') or 'c'
if st == 'h' then
  redis.call('DEL', key)
  if failed then
    redis.call('HSET', key, 'st', 'o', 'until', now + openMs)
    redis.call('PEXPIRE', key, idle)
    return 'open'
  end
  return 'closed'
end
if st == 'o' then
  if now < tonumber(redis.call('HGET', key, 'until') or '0') then return 'open' end
  return 'half_open'
end
local step = math.floor(now / stepMs)
redis.call('HINCRBY', key, 'a' .. step, 1)
if failed then redis.call('HINCRBY', key, 'f' .. step, 1) end
local fields = redis.call('HGETALL', key)
local attempts, failures = 0, 0
for i = 1, #fields, 2 do
  local name, value = fields[i], tonumber(fields[i + 1])
  local kind, index = string.sub(name, 1, 1), tonumber(string.sub(name, 2))
  if (kind == 'a' or kind == 'f') and index then
    if index <= step - steps then
      redis.call('HDEL', key, name)
    elseif kind == 'a' then
      attempts = attempts + value
    else
      failures = failures + value
    end
  end
end
if failures >= threshold and failures * 100 >= percent * attempts then
  redis.call('DEL', key)
  redis.call('HSET', key, 'st', 'o', 'until', now + openMs)
  redis.call('PEXPIRE', key, idle)
  return 'open'
end
redis.call('PEXPIRE', key, idle)
return 'closed'`;

type RedisWithCircuits = Redis & {
  circuitAdmit(...args: (string | number)[]): Promise<number[]>;
  circuitRecord(key: string, ...args: (string | number)[]): Promise<string>;
};

/** The circuits every instance shares. Its errors reach the caller (orchestration.ts falls back to a MemoryCircuitStore). */
export class RedisCircuitStore implements CircuitStore {
  private redis: RedisWithCircuits;
  constructor(
    redis: Redis,
    private settings: CircuitSettings,
  ) {
    redis.defineCommand("circuitAdmit", { lua: ADMIT_SCRIPT });
    redis.defineCommand("circuitRecord", { numberOfKeys: 1, lua: RECORD_SCRIPT });
    this.redis = redis as RedisWithCircuits;
  }

  async admit(brandId: string, livemode: boolean, providers: readonly PaymentProviderType[], now: number): Promise<boolean[]> {
    if (providers.length === 0) return [];
    const keys = providers.map((provider) => circuitKey({ brandId, livemode, provider }));
    const answer = await this.redis.circuitAdmit(keys.length, ...keys, now, this.settings.openMs, idleMs(this.settings));
    if (!Array.isArray(answer) || answer.length !== providers.length) throw new Error("unexpected reply from redis");
    return answer.map((passes) => Number(passes) === 1);
  }

  async record(ref: CircuitRef, failed: boolean, now: number): Promise<CircuitState> {
    const s = this.settings;
    const state = await this.redis.circuitRecord(circuitKey(ref), now, failed ? 1 : 0, stepMs(s), WINDOW_STEPS, s.failureThreshold, s.failurePercent, s.openMs, idleMs(s));
    if (state !== "open" && state !== "closed" && state !== "half_open") throw new Error("unexpected reply from redis");
    return state;
  }

  async states(refs: readonly CircuitRef[], now: number): Promise<CircuitState[]> {
    if (refs.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const ref of refs) pipeline.hmget(circuitKey(ref), "st", "until");
    const answers = (await pipeline.exec()) ?? [];
    return refs.map((_, i) => {
      const [error, value] = answers[i] ?? [new Error("no reply")];
      if (error) throw error;
      const [st, until] = value as [string | null, string | null];
      if (!st || st === "c") return "closed";
      return st === "o" && now < Number(until ?? 0) ? "open" : "half_open";
    });
  }
}
