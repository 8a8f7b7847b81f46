import type { Ctx } from "../ctx.js";
import type { StoredOffer } from "../db/schema/index.js";
import { offerNotFound, sessionExpired, sessionNotFound } from "./errors.js";
import { currentOffer, effectiveStatus, type Answers, type FlowStep, type SessionStatus } from "./machine.js";
import type { GetSessionResponse, UpsellSession } from "./schemas.js";
import { findSession, type UpsellSessionRow } from "./store.js";

export const flowSteps = (flow: readonly StoredOffer[]): FlowStep[] => flow.map((offer) => (offer.downsellOf ? { offerId: offer.id, downsellOf: offer.downsellOf } : { offerId: offer.id }));
export const answersOf = (session: UpsellSessionRow): Answers => ({ accepted: session.acceptedOffers, declined: session.declinedOffers });
export const statusOf = (session: UpsellSessionRow, now: number): SessionStatus => effectiveStatus(session.status, session.expiresAt.getTime(), now);

/** The offer the customer should see now, or null when the flow is finished. */
export function currentOfferOf(session: UpsellSessionRow): StoredOffer | null {
  const id = currentOffer(flowSteps(session.flow), answersOf(session));
  return id === null ? null : (session.flow.find((offer) => offer.id === id) ?? null);
}

/**
 * What every answer checks first: the session exists, has not expired (every operation of an expired
 * session is `Session expired`, SPEC state table), and holds the offer.
 */
export function checkAnswerable(session: UpsellSessionRow | null, offerId: string, now: number): { session: UpsellSessionRow; offer: StoredOffer } {
  if (!session) throw sessionNotFound();
  if (statusOf(session, now) === "expired") throw sessionExpired();
  const offer = session.flow.find((o) => o.id === offerId);
  if (!offer) throw offerNotFound();
  return { session, offer };
}

export function toSessionResource(session: UpsellSessionRow, now: number): UpsellSession {
  return {
    id: session.id,
    status: statusOf(session, now),
    currentStep: session.currentStep,
    totalOffers: session.totalOffers,
    acceptedOffers: session.acceptedOffers,
    declinedOffers: session.declinedOffers,
    totalUpsellAmount: session.totalUpsellCents,
    expiresAt: session.expiresAt.getTime(),
  };
}

/** GET /api/upsell/session/<id>: an expired session reads as `status: "expired"` (docs/upsell.md). */
export async function getUpsellSession({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<GetSessionResponse> {
  const session = await findSession(ctx.db, input.id);
  if (!session) throw sessionNotFound();
  return { success: true, session: toSessionResource(session, ctx.clock.now()) };
}
