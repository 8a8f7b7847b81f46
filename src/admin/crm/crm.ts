import { and, desc, eq, sql } from "drizzle-orm";
import type { Ctx } from "../../ctx.js";
import { brands, orderLineItems, orders } from "../../db/schema/index.js";
import { withTransaction } from "../../db/transaction.js";
import { assertRole, brandOfScope } from "../../http/auth.js";
import { recordAudit } from "../../audit/record.js";
import { recordOrderInCrm } from "../../checkout/record-in-crm.js";
import { crmFailed } from "../../checkout/errors.js";
import { AppError, notFound, validationError } from "../../lib/errors.js";
import { isCrmProvider } from "../../providers/catalog.js";
import { CRM_PROVIDERS, ProviderError, type AddressInput, type CrmProviderType } from "../../providers/types.js";
import type { CrmRetryBody, CrmRetryReply, TestCrmBody, TestCrmReply } from "./schemas.js";

/** POST /api/admin/test-crm: the session brand's CRM adapter checks its connection; demo answers demo. */
export async function testCrm({ ctx, input }: { ctx: Ctx; input: TestCrmBody }): Promise<TestCrmReply> {
  const scope = assertRole(ctx, "admin");
  if (!isCrmProvider(input.provider)) throw validationError(`Invalid request: provider must be one of: ${CRM_PROVIDERS.join(", ")}`, "provider");
  const brandId = await brandOfScope(ctx.db, scope);
  const { adapter, call } = await ctx.providers.crm(input.provider, brandId);
  if (adapter.demo || !adapter.checkConnection) return { success: true, provider: input.provider, demo: adapter.demo };
  try {
    await adapter.checkConnection({ ...call, log: ctx.log });
  } catch (error) {
    if (error instanceof ProviderError) {
      ctx.log.warn({ crm: input.provider, err: error.message }, "CRM connection check failed");
      throw Object.assign(new AppError("PROVIDER_ERROR", `CRM ${input.provider} connection check failed`), { cause: error });
    }
    throw error;
  }
  return { success: true, provider: input.provider, demo: false };
}

/**
 * POST /api/admin/crm-retry: records in its CRM an order of the session's organization whose
 * recording failed or was skipped. Idempotent: an order recorded already answers its crmOrderId.
 * The order row is locked for the call, so two retries record it once.
 */
export async function retryCrm({ ctx, input }: { ctx: Ctx; input: CrmRetryBody }): Promise<CrmRetryReply> {
  const scope = assertRole(ctx, "admin");
  const outcome = await withTransaction(ctx.db, async (tx) => {
    // Tenancy: only orders of the session's organization; the session's brand first when the orderId repeats.
    const [order] = await tx
      .select({ order: orders })
      .from(orders)
      .innerJoin(brands, eq(brands.id, orders.brandId))
      .where(and(eq(orders.orderId, input.orderId), eq(orders.kind, "checkout"), eq(brands.organizationId, scope.organizationId)))
      .orderBy(sql`${orders.brandId} = ${scope.brandId ?? ""} desc`, desc(orders.createdAt))
      .limit(1)
      .for("update", { of: orders });
    if (!order) throw notFound("Order not found");
    const row = order.order;
    const crm = row.crmProvider;
    if (!crm || !isCrmProvider(crm)) throw validationError("Invalid request: the order was not to be recorded in a CRM", "orderId");
    if (row.crmStatus === "recorded" && row.crmOrderId) {
      return { ok: true as const, reply: { success: true as const, orderId: row.orderId, crmProvider: crm, crmOrderId: row.crmOrderId, crmStatus: "recorded" as const, alreadyRecorded: true } };
    }
    const customer = (row.customer ?? {}) as { firstName?: string; lastName?: string; phone?: string };
    if (!row.billingAddress) throw validationError("CRM recording needs customer and billingAddress", "billingAddress");
    const items = await tx.select().from(orderLineItems).where(eq(orderLineItems.orderRef, row.id));

    let crmOrderId: string;
    try {
      crmOrderId = await recordOrderInCrm(ctx, tx, crm as CrmProviderType, row.brandId, {
        orderId: row.orderId,
        amountCents: row.amountCents,
        currency: row.currency,
        customer: { email: row.customerEmail, firstName: customer.firstName, lastName: customer.lastName, phone: customer.phone },
        billingAddress: row.billingAddress as unknown as AddressInput,
        shippingAddress: (row.shippingAddress as unknown as AddressInput | null) ?? null,
        lineItems: items.map((i) => ({ id: i.itemId, name: i.name ?? undefined, quantity: i.quantity, unitPrice: i.unitPriceCents })),
        campaignId: row.crmCampaignId ?? undefined,
        transactionId: row.transactionId,
      });
    } catch (error) {
      if (error instanceof AppError) throw error;
      ctx.log.warn({ crm, err: error instanceof Error ? error.message : String(error) }, "CRM retry failed");
      return { ok: false as const, crm, brandId: row.brandId, orderRef: row.id };
    }
    await tx.update(orders).set({ crmOrderId, crmStatus: "recorded" }).where(eq(orders.id, row.id));
    await recordAudit(tx, ctx, {
      action: "crm.retry",
      resourceType: "order",
      resourceId: row.id,
      success: true,
      organizationId: scope.organizationId,
      brandId: row.brandId,
      details: { orderId: row.orderId, crmProvider: crm, crmOrderId, previousStatus: row.crmStatus },
    });
    return { ok: true as const, reply: { success: true as const, orderId: row.orderId, crmProvider: crm, crmOrderId, crmStatus: "recorded" as const, alreadyRecorded: false } };
  });
  if (outcome.ok) return outcome.reply;
  // The failed attempt is audited on its own: the change (none) rolled back, the attempt did not happen silently.
  await withTransaction(ctx.db, (tx) =>
    recordAudit(tx, ctx, { action: "crm.retry", resourceType: "order", resourceId: outcome.orderRef, success: false, organizationId: scope.organizationId, brandId: outcome.brandId, details: { orderId: input.orderId, crmProvider: outcome.crm } }),
  );
  throw crmFailed(outcome.crm);
}
