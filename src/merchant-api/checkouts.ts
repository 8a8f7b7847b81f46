import { issueCheckoutLink } from "../checkout/checkout-link.js";
import { checkoutCompleted } from "../checkout/errors.js";
import type { CheckoutClaims } from "../checkout/schemas.js";
import { findBrandForCheckout } from "../checkout/store.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import type { ApiActor } from "../http/api-key.js";
import { notFound } from "../lib/errors.js";
import { assertSafeRedirectFields } from "../lib/redirect-url.js";
import { newId } from "../lib/ids.js";
import { invalidApiKey } from "../merchant-credentials/errors.js";
import type { CheckoutIdParams, CreateCheckoutBody, CreatedCheckout, MerchantCheckoutView } from "./schemas.js";
import { findMerchantCheckout, insertMerchantCheckout } from "./store.js";

type Verb<I> = { ctx: Ctx; actor: ApiActor; input: I };

export const DEFAULT_CHECKOUT_LIFETIME_SECONDS = 3600;

/**
 * `POST /api/v1/checkouts`: signs a checkout token for the key's brand (the brand is the key's, never
 * the body's) and stores its short link, the same way the link generators do. `successUrl` and
 * `cancelUrl` must be absolute http(s) URLs without userinfo (400 naming the member). A completed
 * orderId is 409 `Checkout already completed`. Repeats with one Idempotency-Key make one checkout (CONTRACT §17).
 */
export async function createMerchantCheckout({ ctx, actor, input }: Verb<CreateCheckoutBody>): Promise<CreatedCheckout> {
  const { expiresInSeconds = DEFAULT_CHECKOUT_LIFETIME_SECONDS, ...claims } = input;
  // CONTRACT §36 at creation (issue 31): a target the token may not carry is 400 here, not a dead link for the buyer.
  assertSafeRedirectFields(claims, ["successUrl", "cancelUrl"]);
  const brand = await findBrandForCheckout(ctx.db, actor.brandId, claims.orderId);
  // A key of a deleted brand (or organization) is no key.
  if (!brand) throw invalidApiKey();
  if (brand.checkoutStatus === "completed") throw checkoutCompleted();
  const id = newId("mco");
  const link = await withTransaction(ctx.db, async (tx) => {
    const issued = await issueCheckoutLink(ctx, { claims: { ...claims, brandId: actor.brandId } as Omit<CheckoutClaims, "exp" | "iat">, brandId: actor.brandId, db: tx, lifetimeSeconds: expiresInSeconds });
    await insertMerchantCheckout(tx, {
      id,
      brandId: actor.brandId,
      orderId: claims.orderId,
      apiKeyId: actor.id,
      shortCode: issued.code,
      amountCents: claims.amount,
      currency: claims.currency.toUpperCase(),
      provider: claims.provider ?? null,
      createdAt: new Date(ctx.clock.now()),
      expiresAt: new Date(issued.expiresAt),
    });
    return issued;
  });
  return { id, orderId: claims.orderId, url: `${ctx.config.publicBaseUrl}/checkout/${link.token}`, shortUrl: link.checkoutUrl, token: link.token, expiresAt: link.expiresAt };
}

/** `GET /api/v1/checkouts/<id>`: another brand's id is a not-found. */
export async function getMerchantCheckout({ ctx, actor, input }: Verb<CheckoutIdParams>): Promise<MerchantCheckoutView> {
  const row = await findMerchantCheckout(ctx.db, actor.brandId, input.id);
  if (!row) throw notFound("Checkout not found");
  const completed = row.checkoutStatus === "completed";
  const status = completed ? "completed" : row.expiresAt.getTime() <= ctx.clock.now() ? "expired" : row.checkoutStatus === "initialized" ? "initialized" : "open";
  return {
    id: row.id,
    orderId: row.orderId,
    status,
    amount: row.checkoutAmountCents ?? row.amountCents,
    currency: row.checkoutCurrency ?? row.currency,
    provider: row.checkoutProvider ?? row.claimedProvider,
    createdAt: row.createdAt.getTime(),
    completedAt: row.completedAt?.getTime() ?? null,
    expiresAt: row.expiresAt.getTime(),
  };
}
