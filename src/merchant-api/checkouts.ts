import { issueCheckoutLink } from "../checkout/checkout-link.js";
import { checkoutCompleted, orderIdTaken } from "../checkout/errors.js";
import type { CheckoutClaims } from "../checkout/schemas.js";
import { findBrandForCheckout } from "../checkout/store.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { bindResource, ofBrand, oncePerKey } from "../http/idempotent-effects.js";
import { AppError, notFound } from "../lib/errors.js";
import { PAYMENT_PROVIDERS, type PaymentProviderType } from "../providers/types.js";
import { faultPoint } from "../lib/fault-points.js";
import { assertSafeRedirectFields } from "../lib/redirect-url.js";
import { newId } from "../lib/ids.js";
import { assertScope } from "../merchant-credentials/api-key-caller.js";
import { invalidApiKey } from "../merchant-credentials/errors.js";
import { funnelNotFound } from "../upsell/errors.js";
import { findFunnelOfBrand } from "../upsell/funnel/store.js";
import type { CheckoutIdParams, CreateCheckoutBody, CreatedCheckout, MerchantCheckoutView } from "./schemas.js";
import { findApiCheckoutId, findBrandCheckout, findCreatedCheckout, findMerchantCheckoutLinks, insertMerchantCheckout } from "./store.js";

type Verb<I> = { ctx: Ctx; input: I };

export const DEFAULT_CHECKOUT_LIFETIME_SECONDS = 3600;

/**
 * `POST /api/v1/checkouts` (scope checkouts:write): signs a checkout token for the key's brand (the brand is the key's, never
 * the body's) and stores its short link, the same way the link generators do. `successUrl` and
 * `cancelUrl` must be absolute http(s) URLs without userinfo (400 naming the member). A completed orderId is
 * 409 `Checkout already completed`. An Idempotency-Key is bound to the checkout in the transaction
 * that stores it (CONTRACT §40): a repeat, also after a crash and after the HTTP reservation was taken
 * over or expired, answers that checkout (the same id, url and token), never a second one.
 */
export async function createMerchantCheckout({ ctx, input }: Verb<CreateCheckoutBody>): Promise<CreatedCheckout> {
  const actor = await assertScope(ctx, "checkouts:write");
  const effect = ofBrand(actor.brandId, "checkout");
  return oncePerKey(ctx, effect, {
    answer: async (id) => {
      const made = await findCreatedCheckout(ctx.db, actor.brandId, id);
      if (!made) throw notFound("Checkout not found");
      return createdOf(ctx, made);
    },
    make: async () => {
      const { expiresInSeconds = DEFAULT_CHECKOUT_LIFETIME_SECONDS, ...claims } = input;
      // CONTRACT §36 at creation (issue 31): a target the token may not carry is 400 here, not a dead link for the buyer.
      assertSafeRedirectFields(claims, ["successUrl", "cancelUrl"]);
      const brand = await findBrandForCheckout(ctx.db, actor.brandId, claims.orderId);
      // A key of a deleted brand (or organization) is no key.
      if (!brand) throw invalidApiKey();
      if (brand.checkoutStatus === "completed") throw checkoutCompleted();
      // Modes never mix on one order: an orderId the brand already has a checkout of the other mode for is taken.
      if (brand.checkoutId && brand.checkoutLivemode !== null && brand.checkoutLivemode !== actor.livemode) throw orderIdTaken();
      if (actor.livemode) await assertLiveProvider(ctx, actor.brandId, claims.provider);
      // A funnel the buyer is to enter after paying must be the brand's and usable (live or paused), or it is 404 now, not a silent no-upsell later.
      if (claims.funnelId !== undefined) {
        const funnel = await findFunnelOfBrand(ctx.db, actor.brandId, claims.funnelId);
        if (!funnel || funnel.status === "draft") throw funnelNotFound();
      }
      const id = newId("mco");
      // Issue 33, one id per checkout: the orderId's checkout keeps the id it already has (opened from any token, or
      // answered to an earlier API call for it); initialize gives a new one's `checkouts` row this id (src/checkout/store.ts).
      const checkoutId = brand.checkoutId ?? (await findApiCheckoutId(ctx.db, actor.brandId, claims.orderId)) ?? newId("chk");
      const link = await withTransaction(ctx.db, async (tx) => {
        await bindResource(tx, ctx, effect, id);
        // The token carries the key's mode (issue 33): the checkout is made, and charged, in it.
        const tokenClaims = { ...claims, brandId: actor.brandId, livemode: actor.livemode } as Omit<CheckoutClaims, "exp" | "iat">;
        const issued = await issueCheckoutLink(ctx, { claims: tokenClaims, brandId: actor.brandId, db: tx, lifetimeSeconds: expiresInSeconds });
        await insertMerchantCheckout(tx, {
          id,
          checkoutId,
          brandId: actor.brandId,
          orderId: claims.orderId,
          apiKeyId: actor.id,
          // The key's mode (CONTRACT §39): a key reads back only checkouts of its mode.
          livemode: actor.livemode,
          shortCode: issued.code,
          amountCents: claims.amount,
          currency: claims.currency.toUpperCase(),
          provider: claims.provider ?? null,
          createdAt: new Date(ctx.clock.now()),
          expiresAt: new Date(issued.expiresAt),
        });
        return issued;
      });
      faultPoint(ctx.config, "merchant-checkout.after-commit");
      return createdOf(ctx, { id: checkoutId, orderId: claims.orderId, shortCode: link.code, token: link.token, expiresAt: new Date(link.expiresAt), livemode: actor.livemode });
    },
  });
}

/**
 * Issue 33 (CONTRACT §39): a live checkout is refused at creation, before anything is stored and
 * before any buyer sees a page, when it could not be charged: the named provider has no live
 * credentials on the brand, or no provider is named and none has them. 409 PROVIDER_NOT_CONFIGURED.
 */
async function assertLiveProvider(ctx: Ctx, brandId: string, provider: PaymentProviderType | undefined): Promise<void> {
  const candidates = provider ? [provider] : PAYMENT_PROVIDERS;
  const live = await Promise.all(candidates.map((p) => ctx.providers.hasLiveCredentials(p, brandId)));
  if (live.some(Boolean)) return;
  throw new AppError(
    "PROVIDER_NOT_CONFIGURED",
    provider
      ? `Payment provider not configured: ${provider} has no live credentials on this brand (use a test key to test)`
      : "Payment provider not configured: no payment provider has live credentials on this brand (use a test key to test)",
  );
}

const createdOf = (ctx: Pick<Ctx, "config">, made: { id: string; orderId: string; shortCode: string; token: string; expiresAt: Date; livemode: boolean }): CreatedCheckout => ({
  id: made.id,
  orderId: made.orderId,
  url: `${ctx.config.publicBaseUrl}/checkout/${made.token}`,
  shortUrl: `${ctx.config.publicBaseUrl}/c/${made.shortCode}`,
  token: made.token,
  expiresAt: made.expiresAt.getTime(),
  livemode: made.livemode,
});

/**
 * `GET /api/v1/checkouts/<id>` (scope checkouts:write or orders:read), by the id the API answered or the
 * id a checkout's events carry (`checkoutId`, also of checkouts opened from other tokens). Another
 * brand's id, or another mode's (CONTRACT §39), is a not-found.
 */
export async function getMerchantCheckout({ ctx, input }: Verb<CheckoutIdParams>): Promise<MerchantCheckoutView> {
  const actor = await assertScope(ctx, "checkouts:write", "orders:read");
  const now = ctx.clock.now();
  const links = await findMerchantCheckoutLinks(ctx.db, actor.brandId, input.id, actor.livemode);
  const first = links[0];
  if (first) {
    // The newest link decides when the checkout expires: a merchant may make a new link for an expired one.
    const newest = links.at(-1)!;
    return {
      id: input.id,
      orderId: first.orderId,
      status: statusOf(newest.checkoutStatus, newest.expiresAt, now),
      amount: newest.checkoutAmountCents ?? newest.amountCents,
      currency: newest.checkoutCurrency ?? newest.currency,
      provider: newest.checkoutProvider ?? newest.claimedProvider,
      createdAt: first.createdAt.getTime(),
      completedAt: newest.completedAt?.getTime() ?? null,
      expiresAt: newest.expiresAt.getTime(),
      livemode: newest.livemode,
    };
  }
  const row = await findBrandCheckout(ctx.db, actor.brandId, input.id, actor.livemode);
  if (!row) throw notFound("Checkout not found");
  return {
    id: row.id,
    orderId: row.orderId,
    status: statusOf(row.status, row.tokenExpiresAt, now),
    amount: row.amountCents,
    currency: row.currency,
    provider: row.provider,
    createdAt: row.createdAt.getTime(),
    completedAt: row.completedAt?.getTime() ?? null,
    expiresAt: row.tokenExpiresAt.getTime(),
    livemode: row.livemode,
  };
}

/** open (no `checkouts` row yet), initialized, completed, or expired: the link expired unpaid. */
function statusOf(checkoutStatus: "initialized" | "completed" | null, expiresAt: Date, now: number): MerchantCheckoutView["status"] {
  if (checkoutStatus === "completed") return "completed";
  if (expiresAt.getTime() <= now) return "expired";
  return checkoutStatus === "initialized" ? "initialized" : "open";
}
