import type { Db } from "../../db/client.js";
import type { StoredOffer } from "../../db/schema/index.js";
import { calculateCommission } from "../../commissions/calculate.js";
import { newId } from "../../lib/ids.js";
import { findCommissionOfOrder, insertCommission } from "../../commissions/store.js";
import { bumpFunnelStats, funnelOfferOfUpsellOrder, type FunnelStatsDelta } from "./store.js";

// The funnel counters of an upsell answer and of a refund, written in their transactions. Imports
// nothing of upsell/ or orders/ (they call in here), so there is no import cycle.

/** An offer-counter change as the answer computes it (Answer's stats). */
interface OfferDelta {
  offerId: string;
  shown?: number;
  accepted?: number;
  declined?: number;
  revenueCents?: number;
}

interface AnsweredSession {
  brandId: string;
  originalOrderRef: string;
  currency: string;
  /** Test and live are counted apart (CONTRACT §39). */
  livemode: boolean;
  flow: StoredOffer[];
  acceptedOffers: string[];
}

/**
 * The funnel counters of an answer, from the offer counters it changes: a step offer shown is an
 * impression of its variant (a downsell's, a downsell impression), an accept adds its revenue, and
 * the session's first accept counts the funnel's sessions with an accept.
 */
export function funnelAnswerDeltas(session: AnsweredSession, acceptedAfter: readonly string[], offerDeltas: readonly OfferDelta[]): FunnelStatsDelta[] {
  const deltas: FunnelStatsDelta[] = [];
  let funnelId: string | null = null;
  for (const change of offerDeltas) {
    const ref = session.flow.find((offer) => offer.id === change.offerId)?.funnel;
    if (!ref) continue;
    funnelId = ref.funnelId;
    const key = { funnelId: ref.funnelId, stepIndex: ref.stepIndex, variantId: ref.variantId };
    deltas.push(
      ref.downsell
        ? { ...key, downsellImpressions: change.shown ?? 0, downsellAccepts: change.accepted ?? 0, revenueCents: change.revenueCents ?? 0 }
        : { ...key, impressions: change.shown ?? 0, accepts: change.accepted ?? 0, declines: change.declined ?? 0, revenueCents: change.revenueCents ?? 0 },
    );
  }
  if (funnelId !== null && session.acceptedOffers.length === 0 && acceptedAfter.length > 0) deltas.push({ funnelId, stepIndex: -1, variantId: "", sessionsWithAccept: 1 });
  return deltas;
}

/** The UTC day a counter belongs to. */
export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** Called by the answer's verb (decide-answer.ts) in the answer's transaction; nothing for a session no funnel created. */
export async function recordFunnelAnswer(
  tx: Db,
  session: AnsweredSession,
  acceptedAfter: readonly string[],
  offerDeltas: readonly OfferDelta[],
  at: Date,
  upsellOrder?: { id: string; orderId: string; amountCents: number; currency: string },
): Promise<void> {
  if (!session.flow[0]?.funnel) return;
  await bumpFunnelStats(tx, dayOf(at), session.currency, session.livemode, funnelAnswerDeltas(session, acceptedAfter, offerDeltas), at);
  if (upsellOrder) await commissionOfUpsell(tx, session, upsellOrder, at);
}

/**
 * A funnel's upsell charge earns the original order's salesperson a commission of its own (issue 19):
 * the funnel's rate pinned on the session, else the original commission's percentage rate. A fixed
 * commission is per sale and already paid on the original order: no upsell commission then. The
 * row is the charge's, so refunds and disputes of the charge move it (CONTRACT §38).
 */
async function commissionOfUpsell(tx: Db, session: AnsweredSession, order: { id: string; orderId: string; amountCents: number; currency: string }, at: Date): Promise<void> {
  const original = await findCommissionOfOrder(tx, session.originalOrderRef);
  if (!original || original.status === "cancelled") return;
  const funnelRate = session.flow[0]?.funnel?.commissionRate;
  const rate = funnelRate ?? (original.commissionType === "percentage" ? original.commissionRate : null);
  if (rate === null || rate === undefined) return;
  const amount = calculateCommission({ orderAmountCents: order.amountCents, commissionRate: rate, commissionType: "percentage" });
  await insertCommission(tx, {
    ...original,
    id: newId("com"),
    orderRef: order.id,
    orderId: order.orderId,
    orderAmountCents: order.amountCents,
    commissionAmountCents: amount.commissionAmountCents,
    currency: order.currency,
    commissionRate: amount.commissionRate,
    commissionType: "percentage",
    status: "pending",
    statusBeforeDispute: null,
    notes: null,
    createdAt: at,
    updatedAt: at,
  });
}

/**
 * Called by the refund settlement in its transaction: a refund of a funnel's upsell charge counts
 * against its step and variant, on the day of the accept (so a period's net revenue is its accepts'
 * revenue less what was later refunded of them).
 */
export async function recordFunnelRefund(tx: Db, chargeRef: string, amountCents: number, at: Date): Promise<void> {
  const found = await funnelOfferOfUpsellOrder(tx, chargeRef);
  if (!found) return;
  const { ref } = found;
  await bumpFunnelStats(tx, dayOf(found.acceptedAt), found.currency, found.livemode, [{ funnelId: ref.funnelId, stepIndex: ref.stepIndex, variantId: ref.variantId, refundedCents: amountCents }], at);
}

/** The event members of a funnel session's offer (none for other sessions). */
export function funnelEventFields(offer: StoredOffer): { funnelId?: string; funnelVersion?: number; stepIndex?: number; variantId?: string } {
  if (!offer.funnel) return {};
  return { funnelId: offer.funnel.funnelId, funnelVersion: offer.funnel.funnelVersion, stepIndex: offer.funnel.stepIndex, variantId: offer.funnel.variantId };
}
