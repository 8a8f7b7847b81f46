import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import { CHECKOUT_LINK_LIFETIME_SECONDS } from "../checkout/checkout-link.js";
import { signCheckoutToken } from "../checkout/token.js";
import type { Ctx } from "../ctx.js";
import { brands, orders, paymentLinks } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, brandOfScope, type CallerScope } from "../http/auth.js";
import { readMode } from "../payments/mode.js";
import { bindResource, ofBrand, oncePerKey, type EffectOf } from "../http/idempotent-effects.js";
import { notFound, validationError } from "../lib/errors.js";
import { newId, randomToken } from "../lib/ids.js";
import { assertSafeRedirectFields } from "../lib/redirect-url.js";
import { findSalespersonInOrganization } from "../salespeople/store.js";
import { linkMode } from "./link-mode.js";
import { htmlPage } from "../lib/html.js";
import type { CreatePaymentLinkBody, PaymentLinkReply, PaymentLinksQuery, PaymentLinksReply, PaymentLinkView } from "./payment-link-schemas.js";

/** A payment link lives at most a year (and by default exactly that): a product page, not a session. */
export const PAYMENT_LINK_MAX_LIFETIME_MS = 365 * 24 * 3600 * 1000;
/** The list shows the newest links of the brand, up to this many. */
export const PAYMENT_LINKS_LISTED = 200;

type Row = typeof paymentLinks.$inferSelect;

const linkNotFound = () => notFound("Payment link not found");

function viewOf(ctx: Pick<Ctx, "config" | "clock">, row: Row): PaymentLinkView {
  const status = row.disabledAt ? "disabled" : row.expiresAt.getTime() <= ctx.clock.now() ? "expired" : "active";
  return {
    id: row.id,
    url: `${ctx.config.publicBaseUrl}/l/${row.code}`,
    brandId: row.brandId,
    productName: row.productName,
    description: row.description,
    imageUrl: row.imageUrl,
    quantity: row.quantity,
    price: row.unitPriceCents,
    total: row.unitPriceCents * row.quantity,
    currency: row.currency,
    successUrl: row.successUrl,
    cancelUrl: row.cancelUrl,
    salespersonId: row.salespersonId,
    salespersonName: row.salespersonName,
    commissionRate: row.commissionRate,
    status,
    expiresAt: row.expiresAt.getTime(),
    disabledAt: row.disabledAt?.getTime() ?? null,
    livemode: row.livemode,
    createdAt: row.createdAt.getTime(),
  };
}

/** CONTRACT §36 for every URL a link sends a browser to (and the product image it shows). */
const checkUrls = (input: CreatePaymentLinkBody) => assertSafeRedirectFields(input, ["imageUrl", "successUrl", "cancelUrl"]);

/**
 * `POST /api/admin/payment-links` (admin or owner): a lasting link of the session's brand. The
 * salesperson is optional; when given it must be of the organization (else 404, as elsewhere).
 */
export async function createPaymentLink({ ctx, input }: { ctx: Ctx; input: CreatePaymentLinkBody }): Promise<PaymentLinkReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  // CONTRACT §40: an Idempotency-Key names one link of the brand; a repeat answers it as it is now.
  const effect = ofBrand(brandId, "payment_link");
  return oncePerKey(ctx, effect, {
    answer: async (id) => {
      const [row] = await ctx.db.select().from(paymentLinks).where(and(eq(paymentLinks.id, id), eq(paymentLinks.brandId, brandId)));
      if (!row) throw linkNotFound();
      return { success: true, link: viewOf(ctx, row) };
    },
    make: () => makePaymentLink(ctx, scope, brandId, input, effect),
  });
}

async function makePaymentLink(ctx: Ctx, scope: CallerScope, brandId: string, input: CreatePaymentLinkBody, effect: EffectOf): Promise<PaymentLinkReply> {
  checkUrls(input);
  const quantity = input.quantity ?? 1;
  if (input.price * quantity > Number.MAX_SAFE_INTEGER) throw validationError("price × quantity is too large", "price");
  const now = ctx.clock.now();
  const expiresAt = input.expiresAt ?? now + PAYMENT_LINK_MAX_LIFETIME_MS;
  if (expiresAt <= now) throw validationError("expiresAt must be in the future", "expiresAt");
  if (expiresAt > now + PAYMENT_LINK_MAX_LIFETIME_MS) throw validationError("expiresAt may be at most one year from now", "expiresAt");
  const salesperson = input.salespersonId ? await findSalespersonInOrganization(ctx.db, scope.organizationId, input.salespersonId) : undefined;
  if (input.salespersonId && !salesperson) throw notFound("Salesperson not found");
  if (!salesperson && input.commissionRate !== undefined) throw validationError("commissionRate needs a salespersonId", "commissionRate");
  const livemode = await linkMode(ctx, brandId, input.mode);

  const row: Row = {
    id: newId("plink"),
    organizationId: scope.organizationId,
    brandId,
    // 16 random bytes = 128 bits: a link cannot be guessed from another.
    code: randomToken(16),
    livemode,
    productName: input.productName,
    description: input.description || null,
    imageUrl: input.imageUrl ?? null,
    quantity,
    unitPriceCents: input.price,
    currency: input.currency.toUpperCase(),
    successUrl: input.successUrl ?? null,
    cancelUrl: input.cancelUrl ?? null,
    salespersonId: salesperson?.id ?? null,
    salespersonName: salesperson?.name ?? null,
    commissionRate: salesperson ? (input.commissionRate ?? salesperson.commissionRate ?? 0) : null,
    expiresAt: new Date(expiresAt),
    disabledAt: null,
    createdBy: scope.userId,
    createdAt: new Date(now),
  };
  await withTransaction(ctx.db, async (tx) => {
    await bindResource(tx, ctx, effect, row.id);
    await tx.insert(paymentLinks).values(row);
    // The code is the public part of the URL: not in the audit record (docs/admin.md "Audit logs").
    await recordAudit(tx, ctx, {
      action: "checkout_link.create",
      resourceType: "checkout_link",
      resourceId: row.id,
      success: true,
      organizationId: scope.organizationId,
      brandId,
      details: {
        productName: row.productName,
        quantity,
        price: row.unitPriceCents,
        currency: row.currency,
        salespersonId: row.salespersonId,
        commissionRate: row.commissionRate,
        expiresAt,
      },
    });
  });
  return { success: true, link: viewOf(ctx, row) };
}

/** `GET /api/admin/payment-links` (any role of the organization): the session brand's links of one mode, newest first. */
export async function listPaymentLinks({ ctx, input = {} }: { ctx: Ctx; input?: PaymentLinksQuery }): Promise<PaymentLinksReply> {
  const scope = assertRole(ctx, "member");
  const brandId = await brandOfScope(ctx.db, scope);
  const livemode = await readMode(ctx, brandId, input.livemode);
  const rows = await ctx.db
    .select()
    .from(paymentLinks)
    .where(and(eq(paymentLinks.brandId, brandId), eq(paymentLinks.organizationId, scope.organizationId), eq(paymentLinks.livemode, livemode)))
    .orderBy(desc(paymentLinks.createdAt), desc(paymentLinks.id))
    .limit(PAYMENT_LINKS_LISTED);
  const sales = await salesOf(ctx, brandId, rows.map((row) => row.id));
  return { livemode, links: rows.map((row) => ({ ...viewOf(ctx, row), salesCount: sales.get(row.id) ?? 0 })) };
}

/**
 * How many checkout orders each link made: its token carries `metadata.paymentLinkId`, which every
 * order of the checkout keeps; one grouped read of orders_brand_payment_link_idx (same predicate).
 */
async function salesOf(ctx: Ctx, brandId: string, linkIds: string[]): Promise<Map<string, number>> {
  if (linkIds.length === 0) return new Map();
  const linkId = sql<string>`(${orders.metadata} ->> 'paymentLinkId')`;
  const rows = await ctx.db
    .select({ linkId, sales: count() })
    .from(orders)
    .where(and(eq(orders.brandId, brandId), eq(orders.kind, "checkout"), sql`${linkId} is not null`, inArray(linkId, linkIds)))
    .groupBy(linkId);
  return new Map(rows.map((row) => [row.linkId, Number(row.sales)]));
}

/**
 * `POST /api/admin/payment-links/<id>/disable` (admin or owner): the link answers 410 from now on.
 * Another brand's (or organization's) link is 404; disabling twice changes nothing the second time.
 */
export async function disablePaymentLink({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<PaymentLinkReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  return withTransaction(ctx.db, async (tx) => {
    const [row] = await tx
      .select()
      .from(paymentLinks)
      .where(and(eq(paymentLinks.id, input.id), eq(paymentLinks.brandId, brandId), eq(paymentLinks.organizationId, scope.organizationId)))
      .for("update");
    if (!row) throw linkNotFound();
    if (row.disabledAt) return { success: true, link: viewOf(ctx, row) };
    const disabledAt = new Date(ctx.clock.now());
    await tx.update(paymentLinks).set({ disabledAt }).where(eq(paymentLinks.id, row.id));
    await recordAudit(tx, ctx, {
      action: "checkout_link.disable",
      resourceType: "checkout_link",
      resourceId: row.id,
      success: true,
      organizationId: scope.organizationId,
      brandId,
      details: { productName: row.productName },
    });
    return { success: true, link: viewOf(ctx, { ...row, disabledAt }) };
  });
}

export type OpenedLink = { kind: "checkout"; location: string } | { kind: "not_found" } | { kind: "gone" };

/**
 * `GET /l/<code>` (public): a fresh checkout token minted from the stored link, each time, with the
 * usual one-hour lifetime (CONTRACT §36 caps a token at 24 hours; the link lives up to a year).
 * Everything in the token (price, currency, product, URLs, attribution) comes from the row: the
 * request only names the code. A disabled or expired link, or one of a deleted brand, is gone.
 */
export async function openPaymentLink({ ctx, input }: { ctx: Ctx; input: { code: string } }): Promise<OpenedLink> {
  const [found] = await ctx.db
    .select({ link: paymentLinks, brandDeletedAt: brands.deletedAt })
    .from(paymentLinks)
    .innerJoin(brands, eq(brands.id, paymentLinks.brandId))
    .where(eq(paymentLinks.code, input.code))
    .limit(1);
  if (!found) return { kind: "not_found" };
  const { link } = found;
  if (link.disabledAt || found.brandDeletedAt || link.expiresAt.getTime() <= ctx.clock.now()) return { kind: "gone" };
  const amount = link.unitPriceCents * link.quantity;
  const { token } = await signCheckoutToken(
    ctx,
    {
      // A new order id per opening: each buyer's checkout is its own order.
      orderId: `plink_${randomToken(12)}`,
      amount,
      currency: link.currency,
      productName: link.productName,
      ...(link.description ? { productDescription: link.description } : {}),
      ...(link.imageUrl ? { productImage: link.imageUrl } : {}),
      brandId: link.brandId,
      ...(link.successUrl ? { successUrl: link.successUrl } : {}),
      ...(link.cancelUrl ? { cancelUrl: link.cancelUrl } : {}),
      lineItems: [{ id: "item-1", name: link.productName, quantity: link.quantity, unitPrice: link.unitPriceCents, ...(link.description ? { description: link.description } : {}) }],
      metadata: { paymentLinkId: link.id },
      // The link's mode (issue 33): its checkouts are charged in it.
      livemode: link.livemode,
      ...(link.salespersonId ? { salesAttribution: { salespersonId: link.salespersonId, salespersonName: link.salespersonName ?? undefined, commissionRate: link.commissionRate ?? 0 } } : {}),
    },
    CHECKOUT_LINK_LIFETIME_SECONDS,
  );
  return { kind: "checkout", location: `/checkout/${token}` };
}

/** The page a browser gets for a link that is gone (410) or never existed (404). */
export function unavailableLinkPage(kind: "not_found" | "gone"): string {
  const [title, text] =
    kind === "gone"
      ? ["This link is no longer available", "The shop has turned this payment link off or it has expired. Ask the shop for a new link."]
      : ["Link not found", "There is no payment link at this address. Check the link you were given."];
  return htmlPage(title, `<h1>${title}</h1><p>${text}</p>`);
}

