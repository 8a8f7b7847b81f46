import type { Ctx } from "../ctx.js";
import type { StoredOffer } from "../db/schema/index.js";
import { AppError } from "../lib/errors.js";
import { isSafeRedirectUrl, safeRedirectOrNull } from "../lib/redirect-url.js";
import { acceptOffer } from "./accept-offer.js";
import { declineOffer } from "./decline-offer.js";
import type { ActionParams } from "./schemas.js";
import { currentOfferOf, statusOf } from "./session.js";
import { findSession, type UpsellSessionRow } from "./store.js";
import { escapeHtml } from "../lib/html.js";

/** CONTRACT §28: the only two `/success?error=` codes. */
const SESSION_NOT_FOUND = "/success?error=session_not_found";
const SESSION_EXPIRED = "/success?error=session_expired";

/** Where the customer sees `offer`: its external page with `sessionId` appended, else the hosted page. */
function offerLocation(session: UpsellSessionRow, offer: StoredOffer, error?: string): string {
  // CONTRACT §36: only an absolute http(s) URL without userinfo (a row from before the check: the hosted page).
  if (isSafeRedirectUrl(offer.externalPageUrl)) {
    const url = new URL(offer.externalPageUrl);
    url.searchParams.set("sessionId", session.id);
    if (error) url.searchParams.set("error", error);
    return url.toString();
  }
  return `/upsell/${encodeURIComponent(session.id)}${error ? `?error=${error}` : ""}`;
}

/**
 * The origins the confirmation form's POST may redirect to (its successUrl and the offers' external
 * pages): browsers hold a form's redirects to the page's CSP form-action (src/http/security-headers.ts).
 */
export function redirectOrigins(session: UpsellSessionRow): string[] {
  const urls = [session.successUrl, ...session.flow.map((offer) => offer.externalPageUrl)];
  return [...new Set(urls.filter((u): u is string => typeof u === "string" && isSafeRedirectUrl(u)).map((u) => new URL(u).origin))];
}

/** The next step of the flow (CONTRACT §9), or the checkout's successUrl / `/success` when finished. */
function nextLocation(session: UpsellSessionRow): string {
  const offer = currentOfferOf(session);
  return offer ? offerLocation(session, offer) : (safeRedirectOrNull(session.successUrl) ?? "/success");
}

export type ActionLinkStep = { kind: "redirect"; location: string } | { kind: "confirm"; session: UpsellSessionRow; offer: StoredOffer };

/**
 * An action link opened without acting (a GET that is not a user's navigation): where it would
 * redirect when there is nothing to act on, else the offer to confirm. Reads only.
 */
export async function inspectActionLink({ ctx, input }: { ctx: Ctx; input: ActionParams }): Promise<ActionLinkStep> {
  const session = await findSession(ctx.db, input.sessionId);
  if (!session) return { kind: "redirect", location: SESSION_NOT_FOUND };
  if (statusOf(session, ctx.clock.now()) === "expired") return { kind: "redirect", location: SESSION_EXPIRED };
  const offer = currentOfferOf(session);
  return offer ? { kind: "confirm", session, offer } : { kind: "redirect", location: nextLocation(session) };
}

/**
 * CONTRACT §9 action links: accept or decline the current offer, then where the customer goes next.
 * A refused charge sends the customer back to the same offer with `error=payment_failed`.
 */
export async function followActionLink({ ctx, input }: { ctx: Ctx; input: ActionParams }): Promise<{ location: string }> {
  const session = await findSession(ctx.db, input.sessionId);
  if (!session) return { location: SESSION_NOT_FOUND };
  if (statusOf(session, ctx.clock.now()) === "expired") return { location: SESSION_EXPIRED };
  const offer = currentOfferOf(session);
  if (!offer) return { location: nextLocation(session) };
  try {
    const answer = { sessionId: session.id, offerId: offer.id };
    if (input.action === "accept") await acceptOffer({ ctx, input: answer });
    else await declineOffer({ ctx, input: answer });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === "SESSION_EXPIRED") return { location: SESSION_EXPIRED };
    if (error.code === "PAYMENT_FAILED" || error.code === "TOO_MANY_DECLINES" || error.code === "PROVIDER_ERROR" || error.code === "PROVIDER_NOT_CONFIGURED") {
      return { location: offerLocation(session, offer, "payment_failed") };
    }
    // CONFLICT: a concurrent click answered it first; REQUEST_IN_PROGRESS: a charge of the offer is
    // still under way (an accept clicked just before). Carry on from the current state.
    if (error.code !== "CONFLICT" && error.code !== "REQUEST_IN_PROGRESS") throw error;
  }
  const after = await findSession(ctx.db, session.id);
  return { location: nextLocation(after ?? session) };
}


function formatPrice(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

/** The page a non-navigating GET gets: its button POSTs, so only a person's click acts (CONTRACT §9). */
export function confirmationPage(action: ActionParams["action"], session: UpsellSessionRow, offer: StoredOffer): string {
  const verb = action === "accept" ? "Add to my order" : "No, thanks";
  const question =
    action === "accept"
      ? `Add ${escapeHtml(offer.name)} for ${escapeHtml(formatPrice(offer.priceCents, session.currency))} to your order?`
      : `Skip ${escapeHtml(offer.name)}?`;
  const target = `/upsell/action/${action}/${encodeURIComponent(session.id)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow"><title>Confirm</title></head>
<body><main><p>${question}</p><form method="post" action="${escapeHtml(target)}"><button type="submit">${verb}</button></form></main></body></html>
`;
}
