import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import type { CrmProviderType, CrmRecordInput } from "../providers/types.js";
import { crmFailed } from "./errors.js";
import type { CompleteBody, CompleteLineItem } from "./schemas.js";

/**
 * Records the order in the CRM inside the completion's transaction, so it happens once, for the
 * winner. A savepoint keeps a failed CRM call from aborting the order. Without failOnCrmError a
 * failure is logged and the order completes without `crmOrderId`.
 */
export async function recordInCrm(
  ctx: Ctx,
  tx: Db,
  crm: CrmProviderType,
  brandId: string,
  failOnCrmError: boolean,
  input: CompleteBody,
  lineItems: CompleteLineItem[],
): Promise<string | null> {
  try {
    return await recordOrderInCrm(ctx, tx, crm, brandId, {
      orderId: input.orderId,
      amountCents: input.amount,
      currency: input.currency.toUpperCase(),
      customer: { email: input.customerEmail, firstName: input.customer!.firstName, lastName: input.customer!.lastName, phone: input.customer!.phone },
      billingAddress: input.billingAddress!,
      shippingAddress: input.shippingAddress ?? null,
      lineItems: lineItems.map(({ id, name, quantity, unitPrice }) => ({ id, name, quantity, unitPrice })),
      campaignId: input.crmCampaignId,
      transactionId: input.transactionId,
    });
  } catch (error) {
    ctx.log.warn({ crm, err: error instanceof Error ? error.message : String(error) }, "CRM recording failed");
    if (failOnCrmError) throw crmFailed(crm);
    return null;
  }
}

/**
 * One CRM recording of an order in a savepoint of `tx` (a failure leaves the outer transaction
 * usable). Throws when the CRM fails; completion and the administration retry both use it.
 */
export async function recordOrderInCrm(ctx: Ctx, tx: Db, crm: CrmProviderType, brandId: string, input: CrmRecordInput): Promise<string> {
  return tx.transaction(async (savepoint) => {
    const { adapter, call } = await ctx.providers.crm(crm, brandId, savepoint as unknown as Db);
    const { crmOrderId } = await adapter.recordOrder(input, { ...call, log: ctx.log });
    return crmOrderId;
  });
}
