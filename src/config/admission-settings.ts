// What the config reads for admission control (src/http/admission.ts, docs/operations.md "Overload").

/** The queue measures beyond which a class of requests is refused (503 OVERLOADED); 0 turns a measure off. */
export interface AdmissionThresholds {
  /** The oldest wait for a database pool connection still in progress, in ms (PostgreSQL only). */
  poolWaitMs: number;
  /** The event loop's median lateness (of its 10-ms timer ticks) over the last half second, in ms. */
  loopDelayMs: number;
}

export interface AdmissionSettings {
  /** New checkouts (initialize, token generate, v1 checkout creation, short-link opens): refused first. */
  newCheckout: AdmissionThresholds;
  /** Everything else that may be refused: buyers who started paying, admin, webhooks. */
  started: AdmissionThresholds;
  /** Retry-After of a refusal, in seconds. */
  retryAfterSeconds: number;
}

// The loop measure is off unless set: on a host whose cores are shared (PGlite, which runs the
// database on the loop; a busy CI machine) the loop is late for reasons other than this instance's
// requests, and it refused normal traffic there. 200 and 1 000 ms suit an instance with its own cores.
// New checkouts at 25 ms of pool wait: measured at 1.5× and 2× capacity (docs/operations.md
// "Overload"), 100 ms let a standing queue form (admitted p99 480-540 ms); 25 ms keeps it short
// (admitted p99 150-170 ms) and carries as many flows.
export const ADMISSION_DEFAULTS: AdmissionSettings = {
  newCheckout: { poolWaitMs: 25, loopDelayMs: 0 },
  started: { poolWaitMs: 1_000, loopDelayMs: 0 },
  retryAfterSeconds: 1,
};
