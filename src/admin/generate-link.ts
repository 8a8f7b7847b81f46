import { decodeJwt } from "jose";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { findShortLinkOfBrand } from "../checkout/store.js";
import { assertRole, selectedBrand, type CallerScope } from "../http/auth.js";
import { bindResource, ofBrand, oncePerKey, type EffectOf } from "../http/idempotent-effects.js";
import { notFound } from "../lib/errors.js";
import { randomToken } from "../lib/ids.js";
import { issueCheckoutLink } from "../checkout/checkout-link.js";
import { findSalespersonInOrganization } from "../salespeople/store.js";
import { linkMode } from "./link-mode.js";

// The wire schemas live in link-schemas.ts (the web pages import their types from there).
export { GenerateLinkBody, GenerateLinkReply } from "./link-schemas.js";
import type { GenerateLinkBody, GenerateLinkReply } from "./link-schemas.js";

/**
 * `POST /api/admin/tools/generate-link`: a checkout token of the session's brand with
 * `salesAttribution` for a salesperson of the organization (another organization's salesperson
 * is not found), one hour of validity, and its short link. Works in live mode too (CONTRACT §22).
 * The token carries the link's mode (`mode`, else the brand's: issue 33, docs/admin.md).
 */
export async function generateSalesLink({ ctx, input }: { ctx: Ctx; input: GenerateLinkBody }): Promise<GenerateLinkReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = selectedBrand(scope);
  // CONTRACT §40: an Idempotency-Key names one link (its short code) of the brand; a repeat answers it.
  const effect = ofBrand(brandId, "sales_link");
  return oncePerKey(ctx, effect, {
    answer: async (code) => {
      const link = await findShortLinkOfBrand(ctx.db, code, brandId);
      if (!link) throw notFound("Link not found");
      const { orderId, livemode } = decodeJwt(link.token) as { orderId: string; livemode?: boolean };
      // Links made before modes carry no claim: their checkout takes the brand's mode at initialize.
      const mode = livemode ?? (await linkMode(ctx, brandId, undefined));
      return { success: true, checkoutUrl: `${ctx.config.publicBaseUrl}/c/${code}`, token: link.token, code, orderId, expiresAt: link.expiresAt.getTime(), livemode: mode };
    },
    make: () => makeSalesLink(ctx, scope, brandId, input, effect),
  });
}

async function makeSalesLink(ctx: Ctx, scope: CallerScope, brandId: string, input: GenerateLinkBody, effect: EffectOf): Promise<GenerateLinkReply> {
  const salesperson = await findSalespersonInOrganization(ctx.db, scope.organizationId, input.salespersonId);
  if (!salesperson) throw notFound("Salesperson not found");
  // Decided before anything is stored: a link that cannot be paid in its mode is never made.
  const livemode = await linkMode(ctx, brandId, input.mode);
  const { orderInfo } = input;
  const orderId = orderInfo.orderId ?? `link_${randomToken(9)}`;
  const salesAttribution = {
    salespersonId: salesperson.id,
    salespersonName: input.salespersonName ?? salesperson.name,
    commissionRate: input.commissionRate ?? salesperson.commissionRate ?? 0,
  };
  const claims = {
    orderId,
    amount: orderInfo.total,
    currency: orderInfo.currency.toUpperCase(),
    productName: orderInfo.productName,
    brandId,
    lineItems: [{ id: "item-1", name: orderInfo.productName, quantity: 1, unitPrice: orderInfo.total }],
    salesAttribution,
    // Issue 33: the checkout is made in the link's mode, whatever credentials the brand has by then.
    livemode,
  };
  return withTransaction(ctx.db, async (tx) => {
    const link = await issueCheckoutLink(ctx, { claims, brandId, db: tx });
    await bindResource(tx, ctx, effect, link.code);
    // The token and the short code are bearer links: never in the audit record.
    await recordAudit(tx, ctx, {
      action: "checkout_link.generate",
      resourceType: "checkout_link",
      resourceId: orderId,
      success: true,
      organizationId: scope.organizationId,
      brandId,
      details: { ...salesAttribution, productName: orderInfo.productName, total: orderInfo.total, currency: claims.currency, livemode },
    });
    return { success: true, checkoutUrl: link.checkoutUrl, token: link.token, code: link.code, orderId, expiresAt: link.expiresAt, livemode };
  });
}
