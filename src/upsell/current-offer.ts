import type { Ctx } from "../ctx.js";
import { isSafeRedirectUrl, safeRedirectOrNull } from "../lib/redirect-url.js";
import { sessionNotFound } from "./errors.js";
import type { CurrentOfferResponse } from "./schemas.js";
import { currentOfferOf, statusOf } from "./session.js";
import { takesNewCard } from "./pay-offer-by-card.js";
import { findOrderAmount, findSession } from "./store.js";

/**
 * GET /api/upsell/session/<id>/offer (docs/upsell.md "Hosted upsell page"): what the hosted page
 * shows. SPEC's session resource has no offer members, so the page reads them here: the current
 * offer with the prices fixed at creation (null when the flow is finished), the session's currency,
 * and where the flow ends. Reads only; the session id is the only credential, as for the SPEC read.
 */
export async function getCurrentOffer({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<CurrentOfferResponse> {
  const session = await findSession(ctx.db, input.id);
  if (!session) throw sessionNotFound();
  const status = statusOf(session, ctx.clock.now());
  const offer = status === "active" ? currentOfferOf(session) : null;
  const original = offer ? await findOrderAmount(ctx.db, session.originalOrderRef) : null;
  return {
    success: true,
    status,
    orderId: session.originalOrderId,
    currency: session.currency,
    expiresAt: session.expiresAt.getTime(),
    // CONTRACT §36: the page navigates only to safe targets (rows stored before the check included).
    successUrl: safeRedirectOrNull(session.successUrl),
    // Whether the page may offer its card form after a refused one-click charge (the verb's own rule).
    payWithCard: takesNewCard(session.provider),
    offer: offer
      ? {
          id: offer.id,
          name: offer.name,
          ...(offer.description !== undefined ? { description: offer.description } : {}),
          price: offer.priceCents,
          ...(offer.originalPriceCents !== undefined ? { originalPrice: offer.originalPriceCents } : {}),
          ...(offer.image !== undefined ? { image: offer.image } : {}),
          ...(isSafeRedirectUrl(offer.externalPageUrl) ? { externalPageUrl: offer.externalPageUrl } : {}),
          isDownsell: offer.downsellOf !== undefined,
        }
      : null,
    ...(original ? { originalOrder: original } : {}),
  };
}
