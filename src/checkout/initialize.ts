import type { Ctx } from "../ctx.js";
import { DEFAULT_BRAND_ID } from "../db/schema/index.js";
import { sha256 } from "../lib/crypto.js";
import { newId } from "../lib/ids.js";
import { ProviderError, type InitializeInput, type InitializeOutcome, type PaymentProviderType } from "../providers/types.js";
import { allowedProviders } from "./allowed-providers.js";
import { checkoutCompleted, invalidToken, orderIdTaken, paymentLinkGone, providerFailed } from "./errors.js";
import { checkoutMetadataFields } from "../outbox/events.js";
import { providerNotAllowed } from "../payments/errors.js";
import type { Address, CheckoutClaims, InitializeBody, InitializeResponse } from "./schemas.js";
import { findBrandForCheckout, saveInitializedCheckout } from "./store.js";
import { verifyCheckoutToken } from "./token.js";

/** The token writes addresses as address1/address2; API bodies and our rows use line1/line2. */
function addressFromClaims(address: CheckoutClaims["shippingAddress"]): Address | null {
  if (!address) return null;
  const { address1, address2, ...rest } = address;
  return { line1: address1, ...(address2 !== undefined ? { line2: address2 } : {}), ...rest };
}

/**
 * SPEC "Checkout" initialize: verifies the token, checks the provider is allowed (CONTRACT §4),
 * asks the provider to prepare the payment, and records the checkout with a `checkout.created` event.
 * The request's customer and addresses override the token's (global links) and are stored.
 * A token minted from a payment link follows the link: disabled or expired, it is 410 (issue 31). The
 * public generator's token never takes over a checkout of another origin (API, signing key, link): 409.
 */
export async function initializeCheckout({ ctx, input }: { ctx: Ctx; input: InitializeBody }): Promise<InitializeResponse> {
  const claims = await verifyCheckoutToken(ctx, input.token);
  // CONTRACT §27: a token without brandId belongs to the default brand; an unknown or deleted brand is an invalid token.
  const brandId = claims.brandId ?? DEFAULT_BRAND_ID;
  const demoOnly = claims.demoOnly === true;
  // openPaymentLink writes the link's id in the token's metadata; the link is looked up in the token's brand only.
  const brand = await findBrandForCheckout(ctx.db, brandId, claims.orderId, { paymentLinkId: claims.metadata?.paymentLinkId, demoOnly });
  if (!brand) throw invalidToken();
  if (!allowedProviders(claims.provider, brand.enabledProviders ?? []).includes(input.provider)) throw providerNotAllowed();
  // Refused before the provider is asked, so a completed order gets no new payment intent.
  if (brand.checkoutStatus === "completed") throw checkoutCompleted();
  // A link token lives an hour; turning the link off (or its end) ends it at once, as it ends the link's page.
  if (brand.linkDisabledAt || (brand.linkExpiresAt && brand.linkExpiresAt.getTime() <= ctx.clock.now())) throw paymentLinkGone();
  // The generator signs with the master secret for anyone: its token may not re-price a merchant's checkout.
  if (demoOnly && ((brand.checkoutId && !brand.checkoutDemoOnly) || brand.merchantCheckout)) throw orderIdTaken();

  // Issue 33: a checkout the merchant made through the API keeps the id the API answered (its events carry it).
  const checkoutId = brand.checkoutId ?? brand.apiCheckoutId ?? newId("chk");
  const currency = claims.currency.toUpperCase();
  const customer = claims.customer || input.customer ? { ...claims.customer, ...input.customer } : null;
  const shippingAddress = input.shippingAddress ?? addressFromClaims(claims.shippingAddress);
  const billingAddress = input.billingAddress ?? null;

  const livemode = await checkoutMode(ctx, claims, brand, input.provider, brandId);
  const outcome = await initializeAtProvider(ctx, input.provider, brandId, livemode, demoOnly, {
    checkoutId,
    orderId: claims.orderId,
    amountCents: claims.amount,
    currency,
    productName: claims.productName,
    customer,
    shippingAddress,
    billingAddress,
    lineItems: (claims.lineItems ?? []).map(({ id, name, quantity, unitPrice }) => ({ id, name, quantity, unitPrice })),
  });

  const now = new Date(ctx.clock.now());
  const saved = await saveInitializedCheckout(
    ctx.db,
    {
      id: checkoutId,
      brandId,
      orderId: claims.orderId,
      tokenHash: sha256(input.token),
      claims: claims as unknown as Record<string, unknown>,
      amountCents: claims.amount,
      currency,
      provider: input.provider,
      providerOrderId: outcome.providerOrderId,
      customer,
      shippingAddress,
      billingAddress,
      webhookUrl: claims.webhookUrl ?? null,
      successUrl: claims.successUrl ?? null,
      tokenExpiresAt: new Date(claims.exp * 1000),
      livemode,
      now,
    },
    // One checkout.created per checkout: re-initializing (reload, another provider) updates it silently.
    {
      id: newId("evt"),
      payload: {
        checkoutId,
        orderId: claims.orderId,
        amount: claims.amount,
        currency,
        productName: claims.productName,
        provider: input.provider,
        providerOrderId: outcome.providerOrderId,
        customerEmail: customer?.email ?? null,
        livemode,
        ...checkoutMetadataFields(claims.metadata),
      },
    },
  );
  // Completed between our read and this write (a concurrent complete).
  if (!saved) throw checkoutCompleted();

  const response: InitializeResponse = { success: true, provider: input.provider, providerOrderId: outcome.providerOrderId, demo: outcome.demo };
  if (input.provider === "intent_gateway" && outcome.clientSecret) response.clientSecret = outcome.clientSecret;
  if (input.provider === "hosted_store" && outcome.checkoutUrl) response.checkoutUrl = outcome.checkoutUrl;
  return response;
}

/**
 * Issue 33 (CONTRACT §39): the checkout's mode, decided once and stored; every later money step of the
 * checkout and its order uses the stored value. A checkout already initialized keeps its mode (a
 * token of the other mode for its orderId is 409 ORDER_ID_TAKEN: modes never mix on one order). Else
 * the token's mode (its signing key's, or an operator token's `livemode` claim); an operator token
 * without one follows the legacy rule: live when the brand has real credentials for the chosen
 * provider (or PAYMENT_MODE=live), else test, so flows made before modes keep working.
 */
export async function checkoutMode(
  ctx: Ctx,
  claims: Pick<CheckoutClaims, "livemode" | "demoOnly">,
  existing: { checkoutId: string | null; checkoutLivemode: boolean | null },
  provider: PaymentProviderType,
  brandId: string,
): Promise<boolean> {
  // The public generator's tokens are test, whatever they say (it signs with the master secret for anyone).
  const stated = claims.demoOnly === true ? false : claims.livemode;
  if (existing.checkoutId && existing.checkoutLivemode !== null) {
    if (stated !== undefined && stated !== existing.checkoutLivemode) throw orderIdTaken();
    return existing.checkoutLivemode;
  }
  if (stated !== undefined) return stated;
  return ctx.config.paymentMode === "live" || (await ctx.providers.hasLiveCredentials(provider, brandId));
}

async function initializeAtProvider(
  ctx: Ctx,
  provider: PaymentProviderType,
  brandId: string,
  livemode: boolean,
  demoOnly: boolean,
  input: InitializeInput,
): Promise<InitializeOutcome & { demo: boolean }> {
  const { adapter, call } = await ctx.providers.payment(provider, brandId, livemode);
  if (demoOnly && !adapter.demo) throw providerNotAllowed();
  try {
    // `demo`: the page shows the demo card form; a test checkout at a provider's sandbox (test credentials) is not demo.
    return { ...(await adapter.initialize(input, { ...call, log: ctx.log })), demo: adapter.demo };
  } catch (error) {
    if (error instanceof ProviderError) {
      ctx.log.warn({ provider, retryable: error.retryable, err: error.message }, "provider initialize failed");
      throw providerFailed(provider);
    }
    throw error;
  }
}
