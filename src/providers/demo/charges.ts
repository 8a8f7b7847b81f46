import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { newId } from "../../lib/ids.js";
import { ProviderError, type CardInput, type ChargeOutcome, type PaymentProviderType, type PaymentRecord, type ProviderCall, type RefundInput, type RefundOutcome, type SavedChargeInput } from "../types.js";
import { cardLast4, DECLINE_SAVED_CHARGES, REFUND_FAILS, testCardBehaviour } from "./cards.js";
import { toPaymentRecord, type DemoLedger, type LedgerKind, type LedgerRecord, type NewLedgerRecord } from "./ledger.js";

export interface DemoCardCharge {
  provider: PaymentProviderType;
  /** Prefix of the provider's transaction ids (`vga_txn`, …). */
  transactionPrefix: string;
  orderId: string;
  providerOrderId: string | null;
  amountCents: number;
  currency: string;
  card: CardInput;
  /** Builds the payment method token, in the provider's format, for a successful charge. */
  paymentMethodToken: (transactionId: string) => string;
  /** The charge pays the orderId's newest pending provider order, found and marked paid with it (providerOrderId is then ignored). */
  ofOpenOrder?: boolean;
}

/**
 * A charge's record id: made of the call's idempotency key when it has one, so a repeat of the call
 * (a retry after we died between the charge and our commit) finds the first charge and is answered
 * with it instead of charging again, as a gateway with idempotency keys does.
 */
export function chargeId(prefix: string, call: ProviderCall): string {
  if (!call.idempotencyKey) return newId(prefix);
  // The shape of newId's: 22 base64url characters.
  return `${prefix}_${createHash("sha256").update(`${prefix}:${call.idempotencyKey}`).digest("base64url").slice(0, 22)}`;
}

/** The answer a kept charge gives: its own, also to a repeat of its idempotency key. The test card's reason is the demo provider's own code. */
export function outcomeOf(kept: LedgerRecord): ChargeOutcome {
  if (kept.status !== "succeeded") return { status: "declined", reason: String(kept.data.reason), providerCode: String(kept.data.reason) };
  return { status: "succeeded", transactionId: kept.id, paymentMethodToken: kept.paymentMethodToken ?? undefined, providerOrderId: kept.providerOrderId ?? undefined };
}

/** How long a demo provider under the `timeout` outage answers nothing before the call fails. */
export const DEMO_TIMEOUT_MS = 1_500;

/**
 * The brand's "Simulate outage" switch (call.demoOutage, docs/orchestration.md "Demo cards and
 * outages") around a demo charge. `down`: fails at once as a provider that cannot be reached
 * (ProviderError, notCharged: nothing was charged). `timeout`: a slow provider that did the work:
 * the charge is made and kept, then nothing is answered for DEMO_TIMEOUT_MS and the call fails as a
 * retryable timeout (notCharged false); `repeat` (a call with an idempotency key whose charge is kept
 * already) is answered at once, with that charge, as a provider with idempotency keys does.
 */
export async function underDemoOutage<T>(call: ProviderCall, provider: PaymentProviderType, repeat: boolean, work: () => Promise<T>): Promise<T> {
  if (call.demoOutage === "down") throw new ProviderError(provider, "refused (demo outage: down)", false, true);
  const result = await work();
  if (call.demoOutage === "timeout" && !repeat) {
    await sleep(DEMO_TIMEOUT_MS);
    throw new ProviderError(provider, "timeout", true, false);
  }
  return result;
}

/** Whether a charge of `id` is kept already; asked only under the `timeout` outage (no statement otherwise). */
export async function isKeptUnderTimeout(ledger: DemoLedger, call: ProviderCall, provider: PaymentProviderType, id: string, kinds: LedgerKind[] = ["charge"]): Promise<boolean> {
  if (call.demoOutage !== "timeout" || !call.idempotencyKey) return false;
  return (await ledger.find(provider, id, kinds)) !== null;
}

/**
 * A card charge by a direct gateway or CRM in demo mode, following the test cards of CONTRACT §25
 * and issue 34 (some decline at one provider only). The charge is kept (failed ones too, as a
 * provider would) so completion can verify it (§19).
 */
export async function chargeDemoCard(ledger: DemoLedger, call: ProviderCall, charge: DemoCardCharge): Promise<ChargeOutcome> {
  const transactionId = chargeId(charge.transactionPrefix, call);
  const repeat = await isKeptUnderTimeout(ledger, call, charge.provider, transactionId);
  return underDemoOutage(call, charge.provider, repeat, () => chargeDemoCardNow(ledger, call, charge, transactionId));
}

async function chargeDemoCardNow(ledger: DemoLedger, call: ProviderCall, charge: DemoCardCharge, transactionId: string): Promise<ChargeOutcome> {
  const behaviour = testCardBehaviour(charge.card.cardNumber, charge.provider);
  const base = {
    id: transactionId,
    provider: charge.provider,
    kind: "charge" as const,
    orderId: charge.orderId,
    providerOrderId: charge.providerOrderId,
    amountCents: charge.amountCents,
    currency: charge.currency,
    cardLast4: cardLast4(charge.card.cardNumber),
  };
  const keep = (record: NewLedgerRecord) => (charge.ofOpenOrder ? ledger.insertChargeOfOpenOrder(call.clock.now(), record) : ledger.insert(call.clock.now(), record));
  if (behaviour.kind !== "succeed") {
    // CONTRACT §25: outside the intent gateway, the 3-D Secure card is a decline.
    const reason = behaviour.kind === "decline" ? behaviour.reason : "authentication_required";
    return outcomeOf(await keep({ ...base, status: "failed", data: { reason } }));
  }
  return outcomeOf(await keep({ ...base, status: "succeeded", paymentMethodToken: charge.paymentMethodToken(transactionId), cardBehaviour: behaviour.cardBehaviour }));
}

/**
 * One-click charge of a saved method in demo mode: declines `card_declined` for an unknown token or
 * one issued by the 4000000000000341 card (CONTRACT §25); otherwise a new succeeded charge. A repeat of
 * the call's idempotency key is answered with the first charge.
 */
export async function chargeDemoSavedMethod(
  ledger: DemoLedger,
  call: ProviderCall,
  options: { provider: PaymentProviderType; transactionPrefix: string; kind?: LedgerKind },
  input: SavedChargeInput,
): Promise<ChargeOutcome> {
  const kept = await ledger.insertSavedMethodCharge(call.clock.now(), {
    id: chargeId(options.transactionPrefix, call),
    provider: options.provider,
    kind: options.kind ?? "charge",
    paymentMethodToken: input.paymentMethodToken,
    orderId: input.orderId,
    amountCents: input.amountCents,
    currency: input.currency,
    originalOrderId: input.originalOrderId,
    refusingBehaviour: DECLINE_SAVED_CHARGES,
  });
  return kept ? outcomeOf(kept) : { status: "declined", reason: "card_declined" };
}

export async function findDemoPayment(ledger: DemoLedger, provider: PaymentProviderType, transactionId: string, kinds: LedgerKind[] = ["charge"]): Promise<PaymentRecord | null> {
  const row = await ledger.find(provider, transactionId, kinds);
  return row ? toPaymentRecord(row) : null;
}

const refundOutcomeOf = (row: LedgerRecord): RefundOutcome =>
  row.status === "succeeded" ? { status: "succeeded", providerRefundId: row.id } : { status: "failed", reason: String(row.data.reason) };

/**
 * A refund in demo mode, as a gateway with idempotency keys does it: the ledger record's id is made
 * of the key, so a repeat (also one racing the first: the primary key lets one insert win, and the
 * ledger answers the other with it) answers the first refund again. The charge must be a succeeded one of this provider; the 4000000000005126
 * card's charges refuse refunds. The amount left is our check (src/orders/refunds.ts), as at a real gateway.
 */
export async function refundDemoPayment(ledger: DemoLedger, call: ProviderCall, provider: PaymentProviderType, input: RefundInput): Promise<RefundOutcome> {
  if (!call.idempotencyKey) throw new Error("a refund needs an idempotency key");
  const id = `rfd_demo_${call.idempotencyKey}`;
  const earlier = await ledger.find(provider, id, ["refund"]);
  if (earlier) return refundOutcomeOf(earlier);
  const charge = await ledger.find(provider, input.transactionId, ["charge", "payment_intent"]);
  const reason = !charge || charge.status !== "succeeded" ? "charge_not_found" : charge.cardBehaviour === REFUND_FAILS ? "refund_declined" : null;
  const record = { id, provider, kind: "refund" as const, orderId: input.orderId, providerOrderId: input.transactionId, amountCents: input.amountCents, currency: input.currency };
  return refundOutcomeOf(await ledger.insert(call.clock.now(), { ...record, status: reason ? "failed" : "succeeded", data: { reason: reason ?? input.reason } }));
}
