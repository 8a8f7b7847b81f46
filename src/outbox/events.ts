import type { Db } from "../db/client.js";
import { outboxEvents, type DisputeStatus } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";
import type { Metadata } from "../lib/metadata.js";

/** The money of a charge, as every payment and order event carries it (minor units, ISO currency). */
interface ChargeFields {
  orderId: string;
  transactionId: string;
  provider: string;
  amount: number;
  currency: string;
}

/** An upsell event's session and offer. */
interface OfferFields {
  sessionId: string;
  orderId: string;
  originalOrderId: string;
  offerId: string;
  offerName: string;
}

/** Present when the session came from a funnel (docs/funnels.md). */
interface FunnelFields {
  funnelId?: string;
  funnelVersion?: number;
  stepIndex?: number;
  variantId?: string;
}

/** A dispute of one charge: `orderId` is that charge's (the checkout's or an upsell's), `amount` the disputed amount. */
interface DisputeFields extends ChargeFields {
  disputeId: string;
  providerDisputeId: string;
  reason: string | null;
  status: DisputeStatus;
}

/**
 * The catalogue of outgoing events: each type's `data`, as receivers get it (docs/webhooks.md
 * "Event payloads"), without `livemode`, which every payload carries (EventPayloads). Producers are
 * typed against it, so a payload cannot drift from the docs.
 */
interface EventData {
  "checkout.created": {
    checkoutId: string;
    orderId: string;
    amount: number;
    currency: string;
    productName: string;
    provider: string;
    providerOrderId: string;
    customerEmail: string | null;
  };
  "checkout.completed": ChargeFields & { checkoutId: string; customerEmail: string };
  "payment.succeeded": ChargeFields & { providerOrderId: string | null };
  /** A declined card at a provider endpoint, or a refused one-click charge (then with the upsell's ids). */
  "payment.failed": Omit<ChargeFields, "transactionId"> & {
    reason: string;
    /** Issue 34: the normalised decline (src/payments/decline-codes.ts) and the provider's own code; always sent now, absent on events stored before. */
    declineCode?: string;
    declineClass?: "soft" | "hard";
    providerCode?: string;
    originalOrderId?: string;
    sessionId?: string;
    offerId?: string;
    /** A checkout pay (issue 34): every provider it tried, in order. */
    attempts?: { provider: string; result: "approved" | "declined" | "failed" | "requires_action"; declineCode: string | null }[];
  };
  "order.confirmed": ChargeFields & {
    customerEmail: string;
    customerName: string;
    lineItems: { id: string; name?: string; quantity: number; unitPrice: number; sku?: string }[];
    crmOrderId: string | null;
    commissionId: string | null;
  };
  "upsell.accepted": OfferFields & FunnelFields & { transactionId: string; provider: string; amount: number; currency: string; totalUpsellAmount: number };
  "upsell.declined": OfferFields & FunnelFields & { nextOfferId: string | null };
  /** Money given back on one charge (`orderId` is that charge's: the checkout's or an upsell's). */
  "refund.succeeded": ChargeFields & { refundId: string; reason: string; providerRefundId: string; refundedTotal: number };
  "refund.failed": ChargeFields & { refundId: string; reason: string; failureReason: string };
  /** A provider notified a dispute of the charge; `dueBy` (Unix ms) is when its evidence is due, when the provider says. */
  "dispute.created": DisputeFields & { dueBy: number | null };
  /** The dispute closed: `status` is `won` or `charge_refunded` (the money stays), `lost` or `accepted` (it went back). */
  "dispute.closed": DisputeFields;
}

/**
 * What every payload carries besides its type's fields (docs/webhooks.md "Event payloads").
 * `livemode` (issue 21): true when the charge went (or would go) through a provider's real adapter,
 * false for a demo adapter (test mode, no real money), as Stripe's events do.
 * Metadata (issue 33), both always present (`{}` when there is none): `metadata` is the event's own
 * object's (the upsell session's for `upsell.*` and for a refused one-click charge, the refund's for
 * `refund.*`, else the checkout's), `checkoutMetadata` the checkout's, on every event of its chain.
 */
export interface EventCommonFields {
  livemode: boolean;
  metadata: Metadata;
  checkoutMetadata: Metadata;
}

export type EventPayloads = { [T in keyof EventData]: EventData[T] & EventCommonFields };

/** The metadata members of an event about the checkout itself (its payment, its order, a dispute of a charge): the checkout's, twice. */
export const checkoutMetadataFields = (metadata: Metadata | null | undefined): Pick<EventCommonFields, "metadata" | "checkoutMetadata"> => ({
  metadata: metadata ?? {},
  checkoutMetadata: metadata ?? {},
});

export type EventType = keyof EventPayloads;

/** SPEC.md "Events": the events endpoints can subscribe to (`availableEvents`), in the catalogue's order. */
export const EVENT_TYPES = [
  "checkout.created",
  "checkout.completed",
  "payment.succeeded",
  "payment.failed",
  "order.confirmed",
  "upsell.accepted",
  "upsell.declined",
  "refund.succeeded",
  "refund.failed",
  "dispute.created",
  "dispute.closed",
] as const satisfies readonly EventType[];
// Every type of the catalogue is listed (a type added above and not here fails to compile).
const everyTypeListed: Record<EventType, true> = Object.fromEntries(EVENT_TYPES.map((type) => [type, true])) as Record<(typeof EVENT_TYPES)[number], true>;
void everyTypeListed;

/** One event to write: its type decides the shape of `data`. */
export type NewEvent = {
  [T in EventType]: {
    brandId: string;
    type: T;
    data: EventPayloads[T];
    checkoutId?: string | null;
    /** The checkout token's webhookUrl claim (CONTRACT §29). */
    webhookUrl?: string | null;
  };
}[EventType];

/** Outbox rows for events: for enqueueEvents, and for hot statements that insert them themselves. */
export function outboxRows(now: number, events: NewEvent[]): (typeof outboxEvents.$inferInsert)[] {
  const createdAt = new Date(now);
  return events.map((e) => ({
    id: newId("evt"),
    brandId: e.brandId,
    type: e.type,
    payload: e.data as unknown as Record<string, unknown>,
    checkoutId: e.checkoutId ?? null,
    webhookUrl: e.webhookUrl ?? null,
    livemode: e.data.livemode,
    createdAt,
  }));
}

/**
 * Writes events to the outbox. Call it with the transaction of the business change, so the events
 * exist exactly when the change does (ARCHITECTURE "Transactions and the outbox").
 */
export async function enqueueEvents(tx: Db, now: number, events: NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await tx.insert(outboxEvents).values(outboxRows(now, events));
}
