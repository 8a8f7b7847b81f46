import type { Ctx } from "../ctx.js";
import type { StoredOffer } from "../db/schema/index.js";
import { offerNotFound, sessionExpired, sessionNotFound } from "./errors.js";
import { currentOffer, effectiveStatus, type Answers, type FlowStep, type SessionStatus } from "./machine.js";
import type { GetSessionResponse, UpsellSession } from "./schemas.js";
import { findSession, type OriginalOrder, type UpsellSessionRow } from "./store.js";

export const flowSteps = (flow: readonly StoredOffer[]): FlowStep[] => flow.map((offer) => (offer.downsellOf ? { offerId: offer.id, downsellOf: offer.downsellOf } : { offerId: offer.id }));
export const answersOf = (session: UpsellSessionRow): Answers => ({ accepted: session.acceptedOffers, declined: session.declinedOffers });
export const statusOf = (session: UpsellSessionRow, now: number): SessionStatus => effectiveStatus(session.status, session.expiresAt.getTime(), now);

/** How many offers a flow shows at most: its offers, not their downsells (each shows only after a decline). */
export const offerCount = (flow: readonly StoredOffer[]): number => flow.filter((offer) => !offer.downsellOf).length;

/**
 * A new session's row (create-session, a funnel's entry): the original order's brand, checkout,
 * provider, saved method (the caller checked there is one) and URLs, the flow with its prices fixed
 * (CONTRACT §20), nothing answered yet.
 */
export function newSessionRow(
  original: OriginalOrder,
  flow: StoredOffer[],
  session: { id: string; orderId: string; customerEmail: string; customerId?: string | null; currency: string; metadata?: UpsellSessionRow["metadata"]; themeId?: string | null; at: Date; expiresAt: Date },
): UpsellSessionRow {
  return {
    id: session.id,
    brandId: original.brandId,
    orderId: session.orderId,
    originalOrderId: original.orderId,
    originalOrderRef: original.id,
    checkoutId: original.checkoutId,
    provider: original.provider,
    paymentMethodToken: original.paymentMethodToken!,
    customerEmail: session.customerEmail,
    customerId: session.customerId ?? null,
    currency: session.currency,
    status: "active",
    flow,
    acceptedOffers: [],
    declinedOffers: [],
    totalUpsellCents: 0,
    currentStep: 0,
    totalOffers: offerCount(flow),
    successUrl: original.successUrl,
    webhookUrl: original.webhookUrl,
    metadata: session.metadata ?? null,
    livemode: original.livemode,
    themeId: session.themeId ?? null,
    expiresAt: session.expiresAt,
    createdAt: session.at,
    updatedAt: session.at,
  };
}

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
