import type { Ctx } from "../ctx.js";
import { DEFAULT_BRAND_ID } from "../db/schema/index.js";
import { notFound } from "../lib/errors.js";
import { orderIdTaken } from "./errors.js";
import { orderIdInUse } from "./store.js";
import { randomToken } from "../lib/ids.js";
import { PAYMENT_PROVIDERS } from "../providers/types.js";
import { issueCheckoutLink } from "./checkout-link.js";
import type { CheckoutClaims, GenerateTokenBody, GenerateTokenResponse } from "./schemas.js";

const DEMO_TOTAL_CENTS = 4999;

/**
 * SPEC "Token generate" (development and testing): signs a checkout token from the given members,
 * filling the order data that is missing, and stores a short link to it. A demo tool (CONTRACT §35):
 * 404 in live mode (§22) and as soon as any payment provider of the default brand has real
 * credentials, since anyone may call it and it signs with the master secret. It mints only new
 * orderIds (issue 31): a given orderId the default brand already has a checkout for (API, signing
 * key, link, or an earlier generated one) is 409 ORDER_ID_TAKEN, so it can never re-price one.
 */
export async function generateToken({ ctx, input }: { ctx: Ctx; input: GenerateTokenBody }): Promise<GenerateTokenResponse> {
  if (ctx.config.paymentMode === "live" || (await hasRealProvider(ctx, DEFAULT_BRAND_ID))) throw notFound();
  const info = input.orderInfo ?? {};
  if (info.orderId !== undefined && (await orderIdInUse(ctx.db, DEFAULT_BRAND_ID, info.orderId))) throw orderIdTaken();
  const lineItemsTotal = input.lineItems?.reduce((sum, item) => sum + item.quantity * item.unitPrice, 0);
  const total = info.total ?? (lineItemsTotal || DEMO_TOTAL_CENTS);
  const productName = info.productName ?? input.lineItems?.[0]?.name ?? "Demo product";
  const claims: Omit<CheckoutClaims, "exp" | "iat"> = {
    orderId: info.orderId ?? `demo_${randomToken(9)}`,
    amount: total,
    currency: (info.currency ?? "USD").toUpperCase(),
    productName,
    productDescription: info.productDescription ?? "Generated demo order",
    lineItems: input.lineItems ?? [{ id: "demo-item", name: productName, quantity: 1, unitPrice: total }],
    // A generated customer or salesperson would prefill someone else's data or pay a commission to nobody.
    ...(input.customer ? { customer: input.customer } : {}),
    ...(input.salesAttribution ? { salesAttribution: input.salesAttribution } : {}),
    // Signed with the master secret by a tool anyone may call: a provider that moves real money
    // (credentials added after this token was made) must refuse it (initialize, resolvePayment).
    demoOnly: true,
    // Issue 33: the public generator mints test checkouts only (demo adapters, no real money).
    livemode: false,
  };
  const { token, code, checkoutUrl } = await issueCheckoutLink(ctx, { claims, brandId: DEFAULT_BRAND_ID });
  return {
    success: true,
    code,
    checkoutUrl,
    token,
    payload: { orderId: claims.orderId, total: claims.amount, currency: claims.currency },
  };
}

/** Whether any payment provider of the brand has live credentials (a real adapter would charge). */
async function hasRealProvider(ctx: Ctx, brandId: string): Promise<boolean> {
  const live = await Promise.all(PAYMENT_PROVIDERS.map((provider) => ctx.providers.hasLiveCredentials(provider, brandId, ctx.db)));
  return live.some(Boolean);
}
