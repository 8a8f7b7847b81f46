// What the config reads for provider health and success-rate routing (src/payments/routing/,
// docs/orchestration.md "Provider health" and "Success-rate routing").

/** The circuit breaker kept per provider × brand × mode (src/payments/routing/health.ts). */
export interface CircuitSettings {
  /** CIRCUIT_FAILURE_THRESHOLD: failed attempts (timeouts, 5xx, unreachable) within the window that open the circuit, at least… */
  failureThreshold: number;
  /** CIRCUIT_FAILURE_PERCENT: …and at least this share of the window's attempts (declines count as attempts, never as failures). */
  failurePercent: number;
  /** CIRCUIT_WINDOW_SECONDS, in ms: the window failures are counted over (in 10 steps). */
  windowMs: number;
  /** CIRCUIT_OPEN_SECONDS, in ms: how long an open circuit skips the provider before one probe may pass; also how long a probe holds its slot. */
  openMs: number;
}

/** The aged approval rates per segment (src/payments/routing/success-rates.ts). */
export interface SuccessRateSettings {
  /** SUCCESS_RATE_HALF_LIFE: an attempt counts half after this many later attempts of its segment (provider × card brand × currency). */
  halfLife: number;
  /** SUCCESS_RATE_TRAFFIC_HALF_LIFE: …and half after this many later attempts of its card brand × currency, all providers together. */
  trafficHalfLife: number;
  /** SUCCESS_RATE_MIN_ATTEMPTS: fewer attempts than this ever in a segment: no rate (routing keeps the rule's order). */
  minAttempts: number;
}

export interface OrchestrationSettings {
  circuit: CircuitSettings;
  successRates: SuccessRateSettings;
}

// 5 failures and half of the attempts within a minute: a provider that times out on every call opens
// after 5 calls (a few seconds of checkout traffic), while a busy provider whose 5 failures are 1 %
// of its minute stays in use. 30 s open, then one probe: a provider back from an outage takes traffic
// again within about half a minute of the first buyer after it. Success rates: an attempt counts half
// after 30 more attempts of its segment and after 300 more payments in its card brand × currency, 20
// attempts before a rate is trusted: in the simulation (docs/benchmarks-routing.md, 20 seeds) traffic
// left a provider whose approvals dropped from 90 % to 60 % and came back after it recovered, each
// within 500 payments in every seed; over 100 seeds, neighbouring values (the bench's --half-life and
// --traffic-half-life) met the targets in about as many seeds (within a few), none in all.
export const ORCHESTRATION_DEFAULTS: OrchestrationSettings = {
  circuit: { failureThreshold: 5, failurePercent: 50, windowMs: 60_000, openMs: 30_000 },
  successRates: { halfLife: 30, trafficHalfLife: 300, minAttempts: 20 },
};
