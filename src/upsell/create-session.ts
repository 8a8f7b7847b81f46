import type { Ctx } from "../ctx.js";
import type { StoredOffer } from "../db/schema/index.js";
import { isApiActor } from "../http/auth.js";
import { ofBrand, oncePerKey, writeBound, type EffectOf } from "../http/idempotent-effects.js";
import { assertMerchantProof } from "../merchant-credentials/proof.js";
import { newId } from "../lib/ids.js";
import { currencyMismatch, duplicateOfferId, noSavedMethod, sessionNotFound, originalOrderNotFound, providerMismatch, tokenNotIssuedForOrder, upsellWindowClosed } from "./errors.js";
import type { CreateSessionBody, CreateSessionResponse, UpsellOffer } from "./schemas.js";
import { newSessionRow, offerCount } from "./session.js";
import { findSession, originalOrderOf, saveNewSession, type OriginalOrder } from "./store.js";
import { isOfferEligible, type PurchasedCart } from "./targeting.js";

/** CONTRACT §20: create-session only within 60 minutes of the original order's completion. */
export const UPSELL_WINDOW_MS = 60 * 60 * 1000;

/**
 * SPEC "Upsell" create-session. Refuses, before anything is stored: repeated offer ids, a token not
 * issued for `originalOrderId` (CONTRACT §8), another provider or currency than the original order's,
 * a caller without merchant proof (§35), and a request more than 60 minutes after the original order (§20). Then keeps the eligible offers
 * (targeting rules) with their prices fixed, or answers `skipUpsell` when none is eligible.
 */
export async function createUpsellSession({ ctx, input }: { ctx: Ctx; input: CreateSessionBody }): Promise<CreateSessionResponse> {
  assertUniqueOfferIds(input.offers);
  const found = await originalOrderOf(ctx.db, { orderId: input.originalOrderId, paymentMethodToken: input.paymentMethodToken, brandId: isApiActor(ctx.actor) ? ctx.actor.brandId : undefined });
  // Without the token, knowing an order id must not be enough to charge its card: the customer's
  // email must match too, and a mismatch reads exactly like an unknown order.
  const original = input.paymentMethodToken === undefined && found && !sameEmail(found.customerEmail, input.customerEmail) ? null : found;
  if (!original) throw input.paymentMethodToken === undefined ? originalOrderNotFound(true) : tokenNotIssuedForOrder();
  // CONTRACT §35: the offers and prices are the merchant's only when the merchant's key sent them.
  await assertMerchantProof(ctx, original);
  // CONTRACT §40: the key names one session of the order's brand; a repeat answers it (also past the 60 minutes).
  const effect = ofBrand(original.brandId, "upsell_session");
  return oncePerKey(ctx, effect, {
    answer: (sessionId) => createdSessionOf(ctx, original.brandId, sessionId),
    make: () => makeSession(ctx, input, original, effect),
  });
}

async function makeSession(ctx: Ctx, input: CreateSessionBody, original: OriginalOrder, effect: EffectOf): Promise<CreateSessionResponse> {
  if (!original.paymentMethodToken) throw noSavedMethod();
  if (original.provider !== input.provider) throw providerMismatch();
  // SPEC's default `USD` is the original currency whenever the caller omits it: §20 allows no other.
  const currency = (input.currency ?? original.currency).toUpperCase();
  if (currency !== original.currency.toUpperCase()) throw currencyMismatch();
  const now = ctx.clock.now();
  if (now - original.createdAt.getTime() > UPSELL_WINDOW_MS) throw upsellWindowClosed();

  const cart: PurchasedCart = { cartTotal: input.cartTotal ?? original.amountCents, purchasedProductIds: input.purchasedProductIds ?? [] };
  const flow = buildFlow(input.offers, cart);
  const totalOffers = offerCount(flow);
  if (totalOffers === 0) return { success: true, skipUpsell: true, message: "No eligible upsell offers" };

  const id = newId("ups");
  const expiresAt = now + ctx.config.upsellSessionTtlSeconds * 1000;
  const session = { id, orderId: input.orderId, customerEmail: input.customerEmail, customerId: input.customerId, currency, metadata: input.metadata, themeId: input.themeId, at: new Date(now), expiresAt: new Date(expiresAt) };
  await writeBound(ctx, effect, id, (db) => saveNewSession(db, newSessionRow(original, flow, session), flow[0]!.id));
  return { success: true, sessionId: id, upsellUrl: `${ctx.config.publicBaseUrl}/upsell/${id}`, expiresAt, totalOffers };
}

/** The answer of a session a key already made, as its creation gave it. */
async function createdSessionOf(ctx: Ctx, brandId: string, sessionId: string): Promise<CreateSessionResponse> {
  const session = await findSession(ctx.db, sessionId);
  if (!session || session.brandId !== brandId) throw sessionNotFound();
  return { success: true, sessionId, upsellUrl: `${ctx.config.publicBaseUrl}/upsell/${sessionId}`, expiresAt: session.expiresAt.getTime(), totalOffers: session.totalOffers };
}

/** Offer ids name answers, counters and action-link steps: one id, one offer (downsells included). */
function assertUniqueOfferIds(offers: UpsellOffer[]): void {
  const seen = new Set<string>();
  offers.forEach((offer, index) => {
    for (const [field, id] of [[`offers.${index}.id`, offer.id], [`offers.${index}.downsell.id`, offer.downsell?.id]] as const) {
      if (id === undefined) continue;
      if (seen.has(id)) throw duplicateOfferId(field);
      seen.add(id);
    }
  });
}

/**
 * The flow (CONTRACT §9): the eligible offers in request order, each eligible downsell right after
 * its offer. A downsell of an ineligible offer never shows. Prices are copied here and never re-read.
 */
export function buildFlow(offers: UpsellOffer[], cart: PurchasedCart): StoredOffer[] {
  const flow: StoredOffer[] = [];
  for (const offer of offers) {
    if (!isOfferEligible(offer.showIf, cart)) continue;
    flow.push(storedOffer(offer));
    if (offer.downsell && isOfferEligible(offer.downsell.showIf, cart)) flow.push({ ...storedOffer(offer.downsell), downsellOf: offer.id });
  }
  return flow;
}

function storedOffer(offer: Omit<UpsellOffer, "downsell">): StoredOffer {
  const stored: StoredOffer = { id: offer.id, name: offer.name, priceCents: offer.price };
  if (offer.description !== undefined) stored.description = offer.description;
  if (offer.originalPrice !== undefined) stored.originalPriceCents = offer.originalPrice;
  if (offer.image !== undefined) stored.image = offer.image;
  if (offer.externalPageUrl !== undefined) stored.externalPageUrl = offer.externalPageUrl;
  return stored;
}

function sameEmail(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}
