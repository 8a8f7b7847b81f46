import type { Db } from "../db/client.js";
import type { StoredOffer } from "../db/schema/index.js";
import { bumpFunnelStats, funnelOfferOfUpsellOrder, type FunnelStatsDelta } from "./store.js";

// The funnel counters of an upsell answer and of a refund, written in their transactions. Imports
// nothing of upsell/ or orders/ (they call in here), so there is no import cycle.

/** An offer-counter change as the upsell store computes it. */
interface OfferDelta {
  offerId: string;
  shown?: number;
  accepted?: number;
  declined?: number;
  revenueCents?: number;
}

interface AnsweredSession {
  brandId: string;
  currency: string;
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

export const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** Called by the upsell store in the answer's transaction; nothing for a session no funnel created. */
export async function recordFunnelAnswer(tx: Db, session: AnsweredSession, acceptedAfter: readonly string[], offerDeltas: readonly OfferDelta[], at: Date): Promise<void> {
  if (!session.flow[0]?.funnel) return;
  await bumpFunnelStats(tx, dayOf(at), session.currency, funnelAnswerDeltas(session, acceptedAfter, offerDeltas), at);
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
  await bumpFunnelStats(tx, dayOf(found.acceptedAt), found.currency, [{ funnelId: ref.funnelId, stepIndex: ref.stepIndex, variantId: ref.variantId, refundedCents: amountCents }], at);
}

/** The event members of a funnel session's offer (none for other sessions). */
export function funnelEventFields(offer: StoredOffer): { funnelId?: string; funnelVersion?: number; stepIndex?: number; variantId?: string } {
  if (!offer.funnel) return {};
  return { funnelId: offer.funnel.funnelId, funnelVersion: offer.funnel.funnelVersion, stepIndex: offer.funnel.stepIndex, variantId: offer.funnel.variantId };
}
