import { calculateCommission } from "../commissions/calculate.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { isUniqueViolation } from "../db/errors.js";
import { withTransaction } from "../db/transaction.js";
import { validationError } from "../lib/errors.js";
import { faultPoint } from "../lib/fault-points.js";
import { funnelUpsellUrl } from "../funnels/enter.js";
import { completionRows, type CompletionPlan } from "./completion-rows.js";
import { chooseCrm, isSettingOn } from "./crm-choice.js";
import { checkoutExpired, checkoutNotFound, idempotencyConflict } from "./errors.js";
import { recordInCrm } from "./record-in-crm.js";
import type { CheckoutClaims, CompleteBody, CompleteLineItem, CompleteResponse, SalesAttribution } from "./schemas.js";
import { findCompletionCandidates, findOrderOfCheckout, lockOpenCheckout, saveCompletion } from "./store.js";
import { verifyPayment } from "./verify-payment.js";

/**
 * SPEC "Checkout" complete. Reads the checkout(s) for orderId, replays an identical repeat
 * (CONTRACT §7, before the expiry check per §33), refuses an expired checkout (§26), verifies the
 * payment at the provider (§19, verify-payment.ts), records the order in the CRM when asked
 * (record-in-crm.ts), then writes the completion in one statement (completion-rows.ts). With CRM
 * recording (rules 1-2) the CRM is called first, in a transaction holding the checkout's row lock.
 * The claim on the checkout row decides concurrent duplicates; the losers return the winner's result.
 * When a live funnel of the brand takes the order, the answer also carries `upsellUrl`, its upsell
 * session's page (issue 19, docs/funnels.md); a repeat gets the same session.
 */
export async function completeCheckout({ ctx, input }: { ctx: Ctx; input: CompleteBody }): Promise<CompleteResponse> {
  const { result, brandHasLiveFunnel } = await completeOrder({ ctx, input });
  // The read that found the checkout said whether its brand has a live funnel: most have none, and pay no query here.
  const upsellUrl = brandHasLiveFunnel ? await funnelUpsellUrl(ctx, result) : null;
  return upsellUrl ? { ...result, upsellUrl } : result;
}

async function completeOrder({ ctx, input }: { ctx: Ctx; input: CompleteBody }): Promise<{ result: CompleteResponse; brandHasLiveFunnel: boolean }> {
  checkCommissionRate(input.salesAttribution);
  const crmProvider = chooseCrm(input);
  const candidates = await findCompletionCandidates(ctx.db, input.orderId, crmProvider);
  if (candidates.length === 0) throw checkoutNotFound();

  const done = candidates.find((c) => c.order?.transactionId === input.transactionId && c.order.provider === input.provider);
  if (done?.order) return { result: replayOrConflict(done.order, input), brandHasLiveFunnel: done.brandHasLiveFunnel };
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
  /** Writes the completion when the checkout is still open (CONTRACT §7); null when another completion won. */
  const save = async (db: Db, crmOrderId: string | null): Promise<CompleteResponse | null> => {
    const { response, completion } = completionRows(plan, crmOrderId);
    return (await saveCompletion(db, completion)) ? response : null;
  };

  let result: CompleteResponse | null;
  try {
    result =
      crmProvider && canRecordInCrm
        ? // The CRM is called once, by the completion holding the checkout's row lock.
          await withTransaction(ctx.db, async (tx) => {
            if (!(await lockOpenCheckout(tx, checkout.id))) return null;
            return save(tx, await recordInCrm(ctx, tx, crmProvider, checkout.brandId, failOnCrmError, input, plan.lineItems));
          })
        : await save(ctx.db, null);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    result = null;
  }
  if (result) {
    faultPoint(ctx.config, "complete.after-commit");
    return { result, brandHasLiveFunnel: candidate.brandHasLiveFunnel };
  }

  // Lost the race to a concurrent completion of this checkout: answer with its result (CONTRACT §7).
  const winner = await findOrderOfCheckout(ctx.db, checkout.id);
  if (!winner) throw idempotencyConflict();
  return { result: replayOrConflict(winner, input), brandHasLiveFunnel: candidate.brandHasLiveFunnel };
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
