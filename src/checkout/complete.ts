import { calculateCommission } from "../commissions/calculate.js";
import type { Ctx } from "../ctx.js";
import { isUniqueViolation } from "../db/errors.js";
import { checkAddresses } from "./addresses.js";
import { validationError } from "../lib/errors.js";
import { faultPoint } from "../lib/fault-points.js";
import { completionRows, type CompletionPlan } from "./completion-rows.js";
import { chooseCrm, isSettingOn } from "./crm-choice.js";
import { checkoutExpired, checkoutNotFound, idempotencyConflict } from "./errors.js";
import { claimOrWait } from "../payments/charge-once.js";
import { claimCrmRecording, crmClaimsStaleBefore, recordInCrm } from "./record-in-crm.js";
import type { CrmProviderType } from "../providers/types.js";
import { funnelUpsellUrl, namedFunnelUpsellUrl } from "../upsell/funnel/enter.js";
import type { CheckoutClaims, CompleteBody, CompleteLineItem, CompleteResponse, SalesAttribution } from "./schemas.js";
import { findCompletionCandidates, findOrderOfCheckout, saveCompletion } from "./store.js";
import { verifyPayment } from "./verify-payment.js";

/**
 * SPEC "Checkout" complete. Reads the checkout(s) for orderId, replays an identical repeat
 * (CONTRACT §7, before the expiry check per §33), refuses an expired checkout (§26), verifies the
 * payment at the provider (§19, verify-payment.ts), records the order in the CRM when asked
 * (record-in-crm.ts), then writes the completion in one statement (completion-rows.ts). With CRM
 * recording (rules 1-2) the CRM is called first, under a claim on the checkout that holds no
 * database connection. The checkout row decides concurrent duplicates; the losers return the
 * winner's result.
 * When a live funnel of the brand takes the order, the answer also carries `upsellUrl`, its upsell
 * session's page (issue 19, docs/funnels.md); a repeat gets the same session.
 */
export async function completeCheckout({ ctx, input }: { ctx: Ctx; input: CompleteBody }): Promise<CompleteResponse> {
  const { result, brandHasLiveFunnel, funnelId } = await completeOrder({ ctx, input });
  // A funnel the checkout names comes first (issue 33); else the read that found the checkout said
  // whether its brand has a live funnel: most have none, and pay no query here.
  const upsellUrl = funnelId ? await namedFunnelUpsellUrl(ctx, result, funnelId) : brandHasLiveFunnel ? await funnelUpsellUrl(ctx, result) : null;
  return upsellUrl ? { ...result, upsellUrl } : result;
}

async function completeOrder({ ctx, input }: { ctx: Ctx; input: CompleteBody }): Promise<{ result: CompleteResponse; brandHasLiveFunnel: boolean; funnelId?: string }> {
  checkCommissionRate(input.salesAttribution);
  checkAddresses(input);
  const crmProvider = chooseCrm(input);
  const candidates = await findCompletionCandidates(ctx.db, input.orderId, crmProvider);
  if (candidates.length === 0) throw checkoutNotFound();

  const done = candidates.find((c) => c.order?.transactionId === input.transactionId && c.order.provider === input.provider);
  if (done?.order) return { result: replayOrConflict(done.order, input), brandHasLiveFunnel: done.brandHasLiveFunnel, funnelId: (done.checkout.claims as Partial<CheckoutClaims>).funnelId };
  const open = candidates.filter((c) => c.checkout.status !== "completed");
  if (open.length === 0) throw idempotencyConflict();
  const now = ctx.clock.now();
  const live = open.filter((c) => now <= c.checkout.tokenExpiresAt.getTime() + ctx.config.checkoutCompletionGraceSeconds * 1000);
  if (live.length === 0) throw checkoutExpired();

  const { candidate, record } = await verifyPayment(ctx, input, live);
  const checkout = candidate.checkout;
  const claims = checkout.claims as Partial<CheckoutClaims>;

  // SPEC complete rule 2: CRM recording needs customer and billingAddress; without them it is skipped,
  // unless the CRM's failOnCrmError setting asks to fail instead.
  const failOnCrmError = crmProvider !== null && isSettingOn(candidate.failOnCrmError);
  const canRecordInCrm = crmProvider !== null && input.customer !== undefined && input.billingAddress !== undefined;
  if (crmProvider && !canRecordInCrm && failOnCrmError) {
    throw validationError("CRM recording needs customer and billingAddress", input.customer ? "billingAddress" : "customer");
  }

  // The token's attribution (administration link generator) stands when the page sends none.
  const attribution: SalesAttribution | undefined = input.salesAttribution ?? claims.salesAttribution;
  const plan: CompletionPlan = {
    input,
    candidate,
    record,
    attribution,
    commission: attribution ? calculateCommission({ orderAmountCents: checkout.amountCents, commissionRate: attribution.commissionRate, commissionType: attribution.commissionType }) : null,
    lineItems: input.lineItems ?? (claims.lineItems ?? []).map(({ id, name, quantity, unitPrice }): CompleteLineItem => ({ id, name, quantity, unitPrice })),
    crm: crmProvider ? { provider: crmProvider, canRecord: canRecordInCrm } : null,
    now,
  };
  const recordWith = crmProvider && canRecordInCrm ? { crm: crmProvider, failOnCrmError } : null;
  return { result: await writeCompletion(ctx, plan, recordWith), brandHasLiveFunnel: candidate.brandHasLiveFunnel, funnelId: claims.funnelId };
}

/**
 * Writes the completion once (CONTRACT §7): the first completion of the checkout writes it, a
 * concurrent or later one answers with its result. With CRM recording (rules 1-2) the completion
 * first claims the checkout's recording and calls the CRM holding no database connection
 * (record-in-crm.ts); its write clears the claim. Meanwhile a duplicate waits for that write
 * (claimOrWait: 10 s at most, then 409 in progress); a completion that is not to record waits for
 * it too, so the order is never written without the CRM order being recorded for it.
 */
async function writeCompletion(ctx: Ctx, plan: CompletionPlan, recordWith: { crm: CrmProviderType; failOnCrmError: boolean } | null): Promise<CompleteResponse> {
  const checkout = plan.candidate.checkout;
  return claimOrWait(ctx, {
    claim: async () => {
      const claim = recordWith ? await claimCrmRecording(ctx, checkout.id, true) : null;
      if (recordWith && !claim) return null;
      const crmOrderId = claim ? await recordInCrm(ctx, claim, recordWith!.crm, checkout.brandId, checkout.livemode, recordWith!.failOnCrmError, plan.input, plan.lineItems) : null;
      const { response, completion } = completionRows(plan, crmOrderId);
      let saved = false;
      try {
        saved = await saveCompletion(ctx.db, completion, claim?.holder ?? null, crmClaimsStaleBefore(ctx));
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      if (!saved) return null;
      faultPoint(ctx.config, "complete.after-commit");
      return { answer: response };
    },
    read: async () => {
      // Completed by a concurrent completion: answer with its result (CONTRACT §7).
      const winner = await findOrderOfCheckout(ctx.db, checkout.id);
      // Still open: another completion holds the CRM claim (or ours was taken over after it went stale).
      return winner ? { answer: replayOrConflict(winner, plan.input) } : "running";
    },
  });
}

/** A percentage is a fraction (0.10 = 10 %): a rate above 1 would pay more than the order. */
function checkCommissionRate(attribution: SalesAttribution | undefined): void {
  if (attribution && (attribution.commissionType ?? "percentage") === "percentage" && (attribution.commissionRate ?? 0) > 1) {
    throw validationError("Invalid request: salesAttribution.commissionRate must be a fraction between 0 and 1", "salesAttribution.commissionRate");
  }
}

/** CONTRACT §7: the same transaction and amount replays the first result; anything else is a conflict. */
function replayOrConflict(order: { transactionId: string; provider: string; amountCents: number; result: Record<string, unknown> }, input: CompleteBody): CompleteResponse {
  if (order.transactionId !== input.transactionId || order.provider !== input.provider || order.amountCents !== input.amount) throw idempotencyConflict();
  return order.result as CompleteResponse;
}
