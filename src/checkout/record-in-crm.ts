import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { newId } from "../lib/ids.js";
import { ABANDONED_CLAIM_MS } from "../payments/charge-once.js";
import type { CrmProviderType, CrmRecordInput } from "../providers/types.js";
import { crmFailed } from "./errors.js";
import type { CompleteBody, CompleteLineItem } from "./schemas.js";
import { claimCheckoutCrm, releaseCheckoutCrm } from "./store.js";

/** The right to record a checkout's order in its CRM, held from the claim to the write that clears it. */
export interface CrmClaim {
  checkoutId: string;
  holder: string;
}

// The card charge's claim rules (src/payments/charge-once.ts): a claim older than ABANDONED_CLAIM_MS
// belongs to a request that died and may be taken over; a request finding the recording claimed by
// another waits WAIT_FOR_FIRST_MS for it, then answers 409 in progress (claimOrWait).
/** Claims taken before this moment are abandoned. */
export const crmClaimsStaleBefore = (ctx: Ctx) => new Date(ctx.clock.now() - ABANDONED_CLAIM_MS);

/**
 * Claims the recording of a checkout's order in its CRM, so that of concurrent completions (or
 * administration retries) one calls the CRM, outside any transaction: a slow CRM holds no pool
 * connection. A claim left by a request that died is taken over after ABANDONED_CLAIM_MS; the
 * CRM adapters look the sale up before recording it, so the new holder finds what the dead one
 * recorded instead of making a second CRM order. `openOnly`: only while the checkout is not completed.
 */
export async function claimCrmRecording(ctx: Ctx, checkoutId: string, openOnly: boolean): Promise<CrmClaim | null> {
  const holder = newId("crm");
  const held = await claimCheckoutCrm(ctx.db, { checkoutId, holder, at: new Date(ctx.clock.now()), staleBefore: crmClaimsStaleBefore(ctx), openOnly });
  return held ? { checkoutId, holder } : null;
}

/** Gives the claim up (with `db`, which may be the transaction that records its outcome). */
export const releaseCrmClaim = (db: Db, claim: CrmClaim) => releaseCheckoutCrm(db, claim.checkoutId, claim.holder);

/**
 * Records a completing order in the CRM, under the caller's claim. Without failOnCrmError a failure is
 * logged and the order completes without `crmOrderId` (the completion's write then clears the claim);
 * with it the claim is given up and the completion fails with 502.
 */
export async function recordInCrm(
  ctx: Ctx,
  claim: CrmClaim,
  crm: CrmProviderType,
  brandId: string,
  livemode: boolean,
  failOnCrmError: boolean,
  input: CompleteBody,
  lineItems: CompleteLineItem[],
): Promise<string | null> {
  try {
    return await recordOrderInCrm(ctx, crm, brandId, livemode, {
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
    if (!failOnCrmError) return null;
    await releaseCrmClaim(ctx.db, claim);
    throw crmFailed(crm);
  }
}

/**
 * One CRM recording of an order, holding no database connection while the CRM answers (the caller
 * holds the checkout's CRM claim). Throws when the CRM fails; completion and the administration
 * retry both use it.
 */
export async function recordOrderInCrm(ctx: Ctx, crm: CrmProviderType, brandId: string, livemode: boolean, input: CrmRecordInput): Promise<string> {
  // A test order is recorded in the demo CRM, also on a brand with a real one (issue 33).
  const { adapter, call } = await ctx.providers.crm(crm, brandId, livemode);
  const { crmOrderId } = await adapter.recordOrder(input, { ...call, log: ctx.log });
  return crmOrderId;
}
