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

/** The sliding windows of approval rates per segment (src/payments/routing/success-rates.ts). */
export interface SuccessRateSettings {
  /** SUCCESS_RATE_WINDOW: the last N attempts of a segment (provider × card brand × currency). */
  window: number;
  /** SUCCESS_RATE_MIN_ATTEMPTS: fewer attempts than this in a segment: no rate (routing keeps the rule's order). */
  minAttempts: number;
}

export interface OrchestrationSettings {
  circuit: CircuitSettings;
  successRates: SuccessRateSettings;
}

// 5 failures and half of the attempts within a minute: a provider that times out on every call opens
// after 5 calls (a few seconds of checkout traffic), while a busy provider whose 5 failures are 1 %
// of its minute stays in use. 30 s open, then one probe: a provider back from an outage takes traffic
// again within about half a minute of the first buyer after it. 200 attempts per segment, 20 before a
// rate is trusted (and compared with the older ones to notice a change): in the simulation
// (docs/benchmarks-routing.md) 92 % of payments left a provider whose approvals dropped from 90 % to
// 60 % within 500 payments.
export const ORCHESTRATION_DEFAULTS: OrchestrationSettings = {
  circuit: { failureThreshold: 5, failurePercent: 50, windowMs: 60_000, openMs: 30_000 },
  successRates: { window: 200, minAttempts: 20 },
};
