import type { Ctx } from "../ctx.js";
import { DEFAULT_BRAND_ID } from "../db/schema/index.js";
import { payOrder } from "./allowed-providers.js";
import { invalidToken } from "./errors.js";
import type { CheckoutProvidersBody, CheckoutProvidersResponse } from "./schemas.js";
import { findBrandForCheckout } from "./store.js";
import { verifyCheckoutToken } from "./token.js";

/**
 * POST /api/checkout/providers (issue 34): the providers a checkout token allows (CONTRACT §4: the
 * token's alone, else the brand's enabled ones, else all), card-taking ones first in the brand's
 * order, so the page initializes with one the brand allows (`/api/checkout/pay` then routes among them).
 */
export async function checkoutProviders({ ctx, input }: { ctx: Ctx; input: CheckoutProvidersBody }): Promise<CheckoutProvidersResponse> {
  const claims = await verifyCheckoutToken(ctx, input.token);
  const brand = await findBrandForCheckout(ctx.db, claims.brandId ?? DEFAULT_BRAND_ID, claims.orderId, { paymentLinkId: claims.metadata?.paymentLinkId, demoOnly: claims.demoOnly === true });
  if (!brand) throw invalidToken();
  return { providers: payOrder(claims.provider, brand.enabledProviders ?? []) };
}
