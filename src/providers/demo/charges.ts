import { createHash } from "node:crypto";
import { newId } from "../../lib/ids.js";
import type { CardInput, ChargeOutcome, PaymentProviderType, PaymentRecord, ProviderCall, RefundInput, RefundOutcome, SavedChargeInput } from "../types.js";
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
function chargeId(prefix: string, call: ProviderCall): string {
  if (!call.idempotencyKey) return newId(prefix);
  // The shape of newId's: 22 base64url characters.
  return `${prefix}_${createHash("sha256").update(`${prefix}:${call.idempotencyKey}`).digest("base64url").slice(0, 22)}`;
}

/** The answer a kept charge gives: its own, also to a repeat of its idempotency key. */
function outcomeOf(kept: LedgerRecord): ChargeOutcome {
  if (kept.status !== "succeeded") return { status: "declined", reason: String(kept.data.reason) };
  return { status: "succeeded", transactionId: kept.id, paymentMethodToken: kept.paymentMethodToken ?? undefined, providerOrderId: kept.providerOrderId ?? undefined };
}

/**
 * A card charge by a direct gateway or CRM in demo mode, following the test cards of CONTRACT §25.
 * The charge is kept (failed ones too, as a provider would) so completion can verify it (§19).
 */
export async function chargeDemoCard(ledger: DemoLedger, call: ProviderCall, charge: DemoCardCharge): Promise<ChargeOutcome> {
  const behaviour = testCardBehaviour(charge.card.cardNumber);
  const transactionId = chargeId(charge.transactionPrefix, call);
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
