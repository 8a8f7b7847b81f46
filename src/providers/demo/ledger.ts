import type { demoProviderRecords } from "../../db/schema/index.js";
import type { PaymentProviderType, PaymentRecord } from "../types.js";

/**
 * The demo providers' own storage: what a real provider keeps on its side. Rows never hold card
 * numbers or CVVs: at most `cardLast4` and `cardBehaviour`. Demo adapters get a DemoLedger from the
 * registry (implemented over our tables in src/payments/demo-ledger.ts); they hold no database handle.
 */
export type LedgerKind =
  /** intent_gateway: a payment intent; it is the transaction too (transactionId = intent id). */
  | "payment_intent"
  /** A provider-side order for an orderId: vault orders, CRM orders, carts, hosted-store orders. */
  | "provider_order"
  /** One card or saved-method charge; carries the payment method token when it succeeded. */
  | "charge"
  /** An order recorded in a CRM after payment (CrmProvider.recordOrder). */
  | "crm_record"
  /** Money given back on a charge (PaymentProvider.refund); its id is derived from the refund's idempotency key. */
  | "refund";

export type LedgerRecord = typeof demoProviderRecords.$inferSelect;

export interface NewLedgerRecord {
  id: string;
  provider: PaymentProviderType;
  kind: LedgerKind;
  status: string;
  orderId?: string | null;
  providerOrderId?: string | null;
  amountCents?: number | null;
  currency?: string | null;
  paymentMethodToken?: string | null;
  cardLast4?: string | null;
  cardBehaviour?: string | null;
  data?: Record<string, unknown>;
}

export type LedgerPatch = Partial<Omit<NewLedgerRecord, "id" | "provider" | "kind">>;

/** A new provider order for initialize, unless a pending one of the same orderId, amount and currency exists. */
export interface SavedMethodCharge {
  id: string;
  provider: PaymentProviderType;
  kind: LedgerKind;
  paymentMethodToken: string;
  orderId: string;
  amountCents: number;
  currency: string;
  originalOrderId: string;
  /** The card behaviour whose saved method refuses every charge. */
  refusingBehaviour: string;
}

export interface PendingOrder {
  id: string;
  provider: PaymentProviderType;
  orderId: string;
  amountCents: number;
  currency: string;
  data: Record<string, unknown>;
}

/**
 * The demo ledger as the demo adapters see it, bound to the caller's database handle (its
 * transaction, when the payment is recorded in one). `lock` keeps the row locked until that
 * transaction ends, so concurrent payments of one order or intent charge once (CONTRACT §7).
 */
export interface DemoLedger {
  /** Keeps the record; a record with its id kept already is answered instead (a repeat of an id made of an idempotency key). */
  insert(now: number, record: NewLedgerRecord): Promise<LedgerRecord>;
  update(now: number, id: string, patch: LedgerPatch): Promise<LedgerRecord>;
  /** The newest pending order of this orderId when amount and currency match, else `order` created; its id. */
  reuseOrCreatePendingOrder(now: number, order: PendingOrder): Promise<string>;
  /** A record of this provider by id; ids of other providers are unknown here, as they would be. */
  find(provider: PaymentProviderType, id: string, kinds: LedgerKind[], lock?: boolean): Promise<LedgerRecord | null>;
  /** The newest record of a kind for an orderId in one of the given statuses. */
  findLatestForOrder(provider: PaymentProviderType, kind: LedgerKind, orderId: string, statuses: string[], lock?: boolean): Promise<LedgerRecord | null>;
  /**
   * A charge of a saved method, in one statement: the successful payment that first issued the token
   * gives the card; the charge is kept `failed` (card_declined) when that card's behaviour is
   * `refusingBehaviour`, else succeeded. Null, nothing kept, for a token no payment issued. A charge
   * with its id kept already is answered as `insert` does.
   */
  insertSavedMethodCharge(now: number, charge: SavedMethodCharge): Promise<LedgerRecord | null>;
  /**
   * Inserts a charge of the newest pending provider order of its orderId (that order's id becomes the
   * charge's providerOrderId, null without one) and marks the order paid when the charge succeeded:
   * one statement, so atomic without a transaction. A charge with its id kept already is answered as `insert` does.
   */
  insertChargeOfOpenOrder(now: number, record: NewLedgerRecord): Promise<LedgerRecord>;
}

const PAYMENT_STATUS: Record<string, PaymentRecord["status"]> = {
  succeeded: "succeeded",
  processing: "processing",
  requires_action: "requires_action",
  // The customer still has to give a card: for completion that is "not paid yet, act".
  requires_payment_method: "requires_action",
  failed: "failed",
};

/** A charge or intent row as the provider-neutral PaymentRecord completion verifies (CONTRACT §19). */
export function toPaymentRecord(row: LedgerRecord): PaymentRecord {
  return {
    transactionId: row.id,
    orderId: row.orderId,
    providerOrderId: row.providerOrderId,
    status: PAYMENT_STATUS[row.status] ?? "failed",
    amountCents: row.amountCents ?? 0,
    currency: row.currency ?? "",
    paymentMethodToken: row.status === "succeeded" ? (row.paymentMethodToken ?? "") : "",
  };
}
