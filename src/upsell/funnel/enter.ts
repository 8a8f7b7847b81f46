import type { Ctx } from "../../ctx.js";
import type { FunnelOffer, FunnelOfferRef, FunnelStep, StoredOffer } from "../../db/schema/index.js";
import { withTransaction } from "../../db/transaction.js";
import { newId } from "../../lib/ids.js";
import { UPSELL_WINDOW_MS } from "../create-session.js";
import { newSessionRow, offerCount } from "../session.js";
import { originalOrderOf, saveNewSession, type OriginalOrder } from "../store.js";
import { assignVariant } from "./assign.js";
import { dayOf } from "./counters.js";
import { chooseFunnel, type OrderFacts } from "./trigger.js";
import { bumpFunnelStats, claimFunnelEntry, findFunnelEntry, findFunnelOfBrand, hasEarlierOrder, lineItemsOf, liveFunnelsOfBrand, type FunnelWithVersion } from "./store.js";

/** The offer's price in the order's currency: `prices[currency]`, else `price`; undefined when it has none. */
function priceIn(offer: FunnelOffer, currency: string): { priceCents?: number; originalPriceCents?: number } {
  return { priceCents: offer.prices?.[currency] ?? offer.price, originalPriceCents: offer.originalPrices?.[currency] ?? offer.originalPrice };
}

function storedOffer(id: string, offer: FunnelOffer, priceCents: number, originalPriceCents: number | undefined, funnel: FunnelOfferRef): StoredOffer {
  const stored: StoredOffer = { id, name: offer.name, priceCents, funnel };
  if (offer.description !== undefined) stored.description = offer.description;
  if (originalPriceCents !== undefined) stored.originalPriceCents = originalPriceCents;
  if (offer.image !== undefined) stored.image = offer.image;
  if (offer.externalPageUrl !== undefined) stored.externalPageUrl = offer.externalPageUrl;
  return stored;
}

/**
 * The session's flow from a funnel version: per step the variant the original order id is assigned
 * to, priced in the order's currency (a step without a price in it is left out), its downsell after
 * it. Offer ids are the variant ids (a downsell's: `<variant>.downsell`), unique within a funnel.
 */
export function funnelFlow(funnel: { id: string; version: number; steps: FunnelStep[]; commissionRate?: number | null }, originalOrderId: string, currency: string): StoredOffer[] {
  const flow: StoredOffer[] = [];
  funnel.steps.forEach((step, stepIndex) => {
    const variant = assignVariant(step.variants, { originalOrderId, funnelId: funnel.id, stepIndex });
    const offer = priceIn(variant.offer, currency);
    if (offer.priceCents === undefined) return;
    const ref = { funnelId: funnel.id, funnelVersion: funnel.version, stepIndex, variantId: variant.id, ...(funnel.commissionRate != null ? { commissionRate: funnel.commissionRate } : {}) };
    flow.push(storedOffer(variant.id, variant.offer, offer.priceCents, offer.originalPriceCents, { ...ref, downsell: false }));
    if (!variant.downsell) return;
    const downsell = priceIn(variant.downsell, currency);
    if (downsell.priceCents === undefined) return;
    flow.push({ ...storedOffer(`${variant.id}.downsell`, variant.downsell, downsell.priceCents, downsell.originalPriceCents, { ...ref, downsell: true }), downsellOf: variant.id });
  });
  return flow;
}

/** What a trigger may ask of the order (the line items and earlier orders are read only when a funnel is live). */
export async function orderFacts(ctx: Ctx, order: OriginalOrder): Promise<OrderFacts> {
  const country = (order.billingAddress?.country ?? order.shippingAddress?.country) as unknown;
  return {
    lineItems: await lineItemsOf(ctx.db, order.id),
    totalCents: order.amountCents,
    currency: order.currency.toUpperCase(),
    country: typeof country === "string" ? country.toUpperCase() : null,
    firstOrder: !(await hasEarlierOrder(ctx.db, order)),
  };
}

export type FunnelSessionOutcome = { sessionId: string; upsellUrl: string; expiresAt: number; totalOffers: number } | null;

/**
 * The original order's funnel session: the one it already has, else a new one from `funnel`'s
 * current version. One per original order (funnel_entries' key), so a repeated completion or a
 * concurrent one finds the same session. Null when the order cannot be upsold (no saved method,
 * past the 60-minute window) or no step has a price in its currency.
 */
export async function startFunnelSession(ctx: Ctx, order: OriginalOrder, funnel: Pick<FunnelWithVersion, "id" | "currentVersion" | "steps" | "commissionRate">): Promise<FunnelSessionOutcome> {
  const now = ctx.clock.now();
  if (!order.paymentMethodToken || now - order.createdAt.getTime() > UPSELL_WINDOW_MS) return null;
  const currency = order.currency.toUpperCase();
  const flow = funnelFlow({ id: funnel.id, version: funnel.currentVersion, steps: funnel.steps, commissionRate: funnel.commissionRate }, order.orderId, currency);
  const totalOffers = offerCount(flow);
  if (totalOffers === 0) return null;
  const id = newId("ups");
  const at = new Date(now);
  const expiresAt = now + ctx.config.upsellSessionTtlSeconds * 1000;
  const created = await withTransaction(ctx.db, async (tx) => {
    if (!(await claimFunnelEntry(tx, { originalOrderRef: order.id, sessionId: id, funnelId: funnel.id, funnelVersion: funnel.currentVersion, createdAt: at }))) return false;
    const session = { id, orderId: `${order.orderId}-upsell`, customerEmail: order.customerEmail, currency, at, expiresAt: new Date(expiresAt) };
    await saveNewSession(tx, newSessionRow(order, flow, session), flow[0]!.id);
    const first = flow[0]!.funnel!;
    await bumpFunnelStats(tx, dayOf(at), currency, order.livemode, [{ funnelId: funnel.id, stepIndex: -1, variantId: "", sessions: 1 }, { funnelId: funnel.id, stepIndex: first.stepIndex, variantId: first.variantId, impressions: 1 }], at);
    return true;
  });
  if (!created) return existingSession(ctx, order.id);
  return { sessionId: id, upsellUrl: `${ctx.config.publicBaseUrl}/upsell/${id}`, expiresAt, totalOffers };
}

/** The order's funnel session while it can still be answered. */
async function existingSession(ctx: Ctx, orderRef: string): Promise<FunnelSessionOutcome> {
  const entry = await findFunnelEntry(ctx.db, orderRef);
  if (!entry || entry.status !== "active" || entry.expiresAt.getTime() <= ctx.clock.now()) return null;
  return { sessionId: entry.sessionId, upsellUrl: `${ctx.config.publicBaseUrl}/upsell/${entry.sessionId}`, expiresAt: entry.expiresAt.getTime(), totalOffers: entry.totalOffers };
}

/**
 * After a hosted checkout's completion whose brand has a live funnel (complete's read tells): the
 * upsell page of the funnel the order enters, if any. The first live funnel of the brand (by
 * priority) whose trigger matches; an order that already has a funnel session gets it again. Never
 * fails the completion: a problem here only means no upsell.
 */
export async function funnelUpsellUrl(ctx: Ctx, completed: { orderId: string; transactionId: string }): Promise<string | null> {
  try {
    const order = await originalOrderOf(ctx.db, completed);
    if (!order) return null;
    const live = await liveFunnelsOfBrand(ctx.db, order.brandId);
    if (live.length === 0) return null;
    const existing = await existingSession(ctx, order.id);
    if (existing) return existing.upsellUrl;
    const funnel = chooseFunnel(live, await orderFacts(ctx, order));
    return funnel ? ((await startFunnelSession(ctx, order, funnel))?.upsellUrl ?? null) : null;
  } catch (error) {
    ctx.log.warn({ err: (error as Error).message, orderId: completed.orderId }, "funnel entry failed");
    return null;
  }
}

/**
 * After a completion whose checkout names a funnel (claim `funnelId`, issue 33): that funnel's upsell
 * page, its trigger not asked, as a merchant server's named session would start it. A draft, deleted
 * or unknown funnel means no upsell; like funnelUpsellUrl, never fails the completion.
 */
export async function namedFunnelUpsellUrl(ctx: Ctx, completed: { orderId: string; transactionId: string }, funnelId: string): Promise<string | null> {
  try {
    const order = await originalOrderOf(ctx.db, completed);
    if (!order) return null;
    const existing = await existingSession(ctx, order.id);
    if (existing) return existing.upsellUrl;
    const funnel = await findFunnelOfBrand(ctx.db, order.brandId, funnelId);
    if (!funnel || funnel.status === "draft") return null;
    return (await startFunnelSession(ctx, order, funnel))?.upsellUrl ?? null;
  } catch (error) {
    ctx.log.warn({ err: (error as Error).message, orderId: completed.orderId, funnelId }, "named funnel entry failed");
    return null;
  }
}
