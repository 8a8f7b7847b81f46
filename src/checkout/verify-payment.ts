import type { Ctx } from "../ctx.js";
import { ProviderError, type PaymentRecord } from "../providers/types.js";
import { paymentNotVerified, providerFailed } from "./errors.js";
import type { CompleteBody } from "./schemas.js";
import type { CompletionCandidate } from "./store.js";

/** `paidInDemo`: the payment was verified by a demo adapter (recorded on the order, CONTRACT §35). */
export type VerifiedRecord = PaymentRecord & { paidInDemo: boolean };
export type Verified = { candidate: CompletionCandidate; record: VerifiedRecord };

/**
 * CONTRACT §19: the provider confirms the transaction exists, belongs to this order, succeeded, and
 * matches the checkout's amount and currency (the client's `amount` is only compared, never used).
 * With several brands' checkouts for one orderId, the one whose provider order id the payment
 * carries wins; otherwise the first that verifies, preferring the checkout initialized with this provider.
 */
export async function verifyPayment(ctx: Ctx, input: CompleteBody, candidates: CompletionCandidate[]): Promise<Verified> {
  const ordered = [...candidates].sort((a, b) => Number(b.checkout.provider === input.provider) - Number(a.checkout.provider === input.provider));
  let firstFailure: string | null = null;
  let fallback: Verified | null = null;
  for (const candidate of ordered) {
    const outcome = await verifyAgainst(ctx, input, candidate);
    if (typeof outcome === "string") {
      firstFailure ??= outcome;
      continue;
    }
    if (ordered.length === 1 || (outcome.providerOrderId !== null && outcome.providerOrderId === candidate.checkout.providerOrderId)) return { candidate, record: outcome };
    fallback ??= { candidate, record: outcome };
  }
  if (fallback) return fallback;
  throw paymentNotVerified(firstFailure ?? "payment_not_found");
}

/** The payment record when it verifies against this checkout, else the reason it does not. */
async function verifyAgainst(ctx: Ctx, input: CompleteBody, candidate: CompletionCandidate): Promise<VerifiedRecord | string> {
  const checkout = candidate.checkout;
  if (input.amount !== checkout.amountCents) return "amount_mismatch";
  if (input.currency.toUpperCase() !== checkout.currency) return "currency_mismatch";
  // The checkout's stored mode (issue 33): a test checkout is verified at the provider's sandbox when
  // the brand saved test credentials, else by the demo adapter; a live one with the live credentials.
  let { adapter, call } = await ctx.providers.payment(input.provider, checkout.brandId, checkout.livemode);
  let record: PaymentRecord | null;
  try {
    const providerOrderId = input.providerOrderId ?? (checkout.provider === input.provider ? (checkout.providerOrderId ?? undefined) : undefined);
    record = await adapter.findPayment({ transactionId: input.transactionId, providerOrderId }, { ...call, log: ctx.log });
    // A test checkout paid in demo before the brand saved sandbox credentials is in the demo ledger:
    // looked up there too (test money only; never for a live checkout).
    if (!record && !checkout.livemode && !adapter.demo) {
      ({ adapter, call } = ctx.providers.demoPayment(input.provider));
      record = await adapter.findPayment({ transactionId: input.transactionId, providerOrderId }, { ...call, log: ctx.log });
    }
  } catch (error) {
    if (error instanceof ProviderError) {
      ctx.log.warn({ provider: input.provider, retryable: error.retryable, err: error.message }, "payment lookup failed");
      throw providerFailed(input.provider);
    }
    throw error;
  }
  if (!record) return "payment_not_found";
  const belongs =
    record.orderId === input.orderId || (record.orderId === null && record.providerOrderId !== null && record.providerOrderId === checkout.providerOrderId);
  if (!belongs) return "order_mismatch";
  if (record.status !== "succeeded") return `payment_${record.status}`;
  if (record.amountCents !== checkout.amountCents) return "amount_mismatch";
  if (record.currency.toUpperCase() !== checkout.currency) return "currency_mismatch";
  return { ...record, paidInDemo: adapter.demo };
}
