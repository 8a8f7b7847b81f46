import { and, desc, eq, sql } from "drizzle-orm";
import type { Ctx } from "../../ctx.js";
import { brands, orderLineItems, orders } from "../../db/schema/index.js";
import { withTransaction } from "../../db/transaction.js";
import { assertRole, brandOfScope } from "../../http/auth.js";
import { recordAudit } from "../../audit/record.js";
import { claimCrmRecording, recordOrderInCrm, releaseCrmClaim, type CrmClaim } from "../../checkout/record-in-crm.js";
import { claimOrWait } from "../../payments/charge-once.js";
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
  // The connection check is of the live CRM (the credentials saved); without them, the demo one as before.
  const { adapter, call } = await ctx.providers.crm(input.provider, brandId, true);
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
 * The CRM is called under the CRM claim on the order's checkout (src/checkout/record-in-crm.ts),
 * holding no database connection; the order is marked recorded, the claim cleared and the retry
 * audited in one short transaction after. Concurrent retries record it once: the others wait for
 * the claim's holder (claimOrWait: 10 s at most, then 409 in progress) and answer `alreadyRecorded`.
 */
export async function retryCrm({ ctx, input }: { ctx: Ctx; input: CrmRetryBody }): Promise<CrmRetryReply> {
  const scope = assertRole(ctx, "admin");
  const order = await findOrderToRecord(ctx, scope, input.orderId);
  if (isRecorded(order)) return alreadyRecorded(order);
  if (!order.billingAddress) throw validationError("CRM recording needs customer and billingAddress", "billingAddress");
  return claimOrWait(ctx, {
    claim: async () => {
      const claim = await claimCrmRecording(ctx, order.checkoutId!, false);
      if (!claim) return null;
      try {
        // Read again under the claim: a retry that held it before may have recorded the order.
        const current = await findOrderToRecord(ctx, scope, input.orderId);
        return { answer: isRecorded(current) ? alreadyRecorded(current) : await recordClaimed(ctx, scope, current, claim) };
      } finally {
        await releaseCrmClaim(ctx.db, claim);
      }
    },
    read: async () => {
      const current = await findOrderToRecord(ctx, scope, input.orderId);
      return isRecorded(current) ? { answer: alreadyRecorded(current) } : "running";
    },
  });
}

type OrderRow = typeof orders.$inferSelect;

const isRecorded = (row: OrderRow) => row.crmStatus === "recorded" && Boolean(row.crmOrderId);
const alreadyRecorded = (row: OrderRow): CrmRetryReply => ({
  success: true,
  orderId: row.orderId,
  crmProvider: row.crmProvider!,
  crmOrderId: row.crmOrderId!,
  crmStatus: "recorded",
  alreadyRecorded: true,
});

/** The checkout order to record, with tenancy: only the session's organization, its brand first when the orderId repeats. */
async function findOrderToRecord(ctx: Ctx, scope: { organizationId: string; brandId?: string | null }, orderId: string): Promise<OrderRow> {
  const [found] = await ctx.db
    .select({ order: orders })
    .from(orders)
    .innerJoin(brands, eq(brands.id, orders.brandId))
    .where(and(eq(orders.orderId, orderId), eq(orders.kind, "checkout"), eq(brands.organizationId, scope.organizationId)))
    .orderBy(sql`${orders.brandId} = ${scope.brandId ?? ""} desc`, desc(orders.createdAt))
    .limit(1);
  if (!found) throw notFound("Order not found");
  const crm = found.order.crmProvider;
  if (!crm || !isCrmProvider(crm)) throw validationError("Invalid request: the order was not to be recorded in a CRM", "orderId");
  return found.order;
}

/** The CRM call (no connection held) and its outcome: recorded, claim cleared and audited together; a failure audited on its own. */
async function recordClaimed(ctx: Ctx, scope: { organizationId: string }, row: OrderRow, claim: CrmClaim): Promise<CrmRetryReply> {
  const crm = row.crmProvider as CrmProviderType;
  const customer = (row.customer ?? {}) as { firstName?: string; lastName?: string; phone?: string };
  const items = await ctx.db.select().from(orderLineItems).where(eq(orderLineItems.orderRef, row.id));
  let crmOrderId: string;
  try {
    crmOrderId = await recordOrderInCrm(ctx, crm, row.brandId, row.livemode, {
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
    // The failed attempt is audited on its own: nothing changed, but the attempt did not happen silently.
    await withTransaction(ctx.db, (tx) =>
      recordAudit(tx, ctx, { action: "crm.retry", resourceType: "order", resourceId: row.id, success: false, organizationId: scope.organizationId, brandId: row.brandId, details: { orderId: row.orderId, crmProvider: crm } }),
    );
    throw crmFailed(crm);
  }
  await withTransaction(ctx.db, async (tx) => {
    await tx.update(orders).set({ crmOrderId, crmStatus: "recorded" }).where(eq(orders.id, row.id));
    await releaseCrmClaim(tx, claim);
    await recordAudit(tx, ctx, {
      action: "crm.retry",
      resourceType: "order",
      resourceId: row.id,
      success: true,
      organizationId: scope.organizationId,
      brandId: row.brandId,
      details: { orderId: row.orderId, crmProvider: crm, crmOrderId, previousStatus: row.crmStatus },
    });
  });
  return { success: true, orderId: row.orderId, crmProvider: crm, crmOrderId, crmStatus: "recorded", alreadyRecorded: false };
}
