/**
 * Named crash points for the fault tests and `npm run soak` (docs/operations.md "Crash safety"):
 * with FAULT_POINT=<name> the process kills itself (SIGKILL, no clean-up) when it reaches that point,
 * so tests can check that a retry gets the original result and nothing is charged twice. Unset in
 * production (refused with PAYMENT_MODE=live); unset, a call is one comparison.
 */
export const FAULT_POINTS = [
  /** Upsell accept (and pay-with-card), checkout pay (before each provider): the claim is committed, the provider not yet called. */
  "charge.before-provider",
  /** Upsell accept (and pay-with-card), checkout pay (after each provider): the provider answered, the answer not yet saved. */
  "charge.after-provider",
  /** Upsell accept (and pay-with-card): the answer committed, the response not yet sent. */
  "charge.after-commit",
  /** Checkout pay (issue 34): a soft decline recorded, the next provider of the cascade not yet called. */
  "cascade.between-providers",
  /** Checkout complete: committed, the response not yet sent. */
  "complete.after-commit",
  /** Refund: the provider answered, the refund not yet settled in our tables (the reconciler settles it). */
  "refund.after-provider",
  /** `POST /api/v1/checkouts`: the checkout and its short link committed, the response not yet sent. */
  "merchant-checkout.after-commit",
  /** Webhook worker: the delivery is claimed (the business change long committed), the send not yet made. */
  "webhook.before-send",
] as const;
export type FaultPoint = (typeof FAULT_POINTS)[number];

export function faultPoint(config: { faultPoint: FaultPoint | null }, point: FaultPoint): void {
  if (config.faultPoint === point) process.kill(process.pid, "SIGKILL");
}
