import { calculateCommission, type CommissionAmount } from "../commissions/calculate.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import { validationError } from "../lib/errors.js";
import { faultPoint } from "../lib/fault-points.js";
import { newId } from "../lib/ids.js";
import { ProviderError, type CrmProviderType, type CrmRecordInput, type PaymentRecord } from "../providers/types.js";
import { outboxRows } from "../webhooks/events.js";
import { chooseCrm, isSettingOn } from "./crm-choice.js";
import { checkoutExpired, checkoutNotFound, crmFailed, idempotencyConflict, paymentNotVerified, providerFailed } from "./errors.js";
import type { CheckoutClaims, CompleteBody, CompleteLineItem, CompleteResponse, SalesAttribution } from "./schemas.js";
import { findCompletionCandidates, findOrderOfCheckout, lockOpenCheckout, saveCompletion, type CompletionCandidate } from "./store.js";

/** `paidInDemo`: the payment was verified by a demo adapter (recorded on the order, CONTRACT §35). */
type VerifiedRecord = PaymentRecord & { paidInDemo: boolean };
type Verified = { candidate: CompletionCandidate; record: VerifiedRecord };

/**
 * SPEC "Checkout" complete. Reads the checkout(s) for orderId, replays an identical repeat
 * (CONTRACT §7, before the expiry check per §33), refuses an expired checkout (§26), verifies the
 * payment at the provider (§19), then writes at once (one statement): the checkout marked completed,
 * the order with its line items and payment method token (§8), the commission (§13) and the three
 * outbox events. With CRM recording (rules 1-2) the CRM is called first, in a transaction holding the
 * checkout's row lock. The claim on the checkout row decides concurrent duplicates; the losers return
 * the winner's stored result.
 */
export async function completeCheckout({ ctx, input }: { ctx: Ctx; input: CompleteBody }): Promise<CompleteResponse> {
  checkCommissionRate(input.salesAttribution);
  const crmProvider = chooseCrm(input);
  const candidates = await findCompletionCandidates(ctx.db, input.orderId, crmProvider);
  if (candidates.length === 0) throw checkoutNotFound();

  const done = candidates.find((c) => c.order?.transactionId === input.transactionId && c.order.provider === input.provider);
  if (done?.order) return replayOrConflict(done.order, input);
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
  const commission = attribution ? calculateCommission({ orderAmountCents: checkout.amountCents, commissionRate: attribution.commissionRate, commissionType: attribution.commissionType }) : null;
  const lineItems: CompleteLineItem[] = input.lineItems ?? (claims.lineItems ?? []).map(({ id, name, quantity, unitPrice }) => ({ id, name, quantity, unitPrice }));
  const orderRef = newId("ord");
  const commissionId = commission ? newId("com") : undefined;
  const providerOrderId = record.providerOrderId ?? input.providerOrderId ?? checkout.providerOrderId;
  const at = new Date(now);

  /** The completion's rows, written by one statement when the checkout is still open (CONTRACT §7). */
  const save = async (db: Db, crmOrderId: string | null): Promise<CompleteResponse | null> => {
    const completed: CompleteResponse = {
      success: true,
      orderId: input.orderId,
      transactionId: input.transactionId,
      paymentMethodToken: record.paymentMethodToken,
      provider: input.provider,
      ...(crmOrderId ? { crmOrderId, crmProvider: crmProvider! } : {}),
      ...(commissionId ? { commissionId } : {}),
    };
    const money = { orderId: input.orderId, transactionId: input.transactionId, provider: input.provider, amount: checkout.amountCents, currency: checkout.currency };
    const common = { brandId: checkout.brandId, checkoutId: checkout.id, webhookUrl: checkout.webhookUrl };
    const saved = await saveCompletion(db, {
      checkoutId: checkout.id,
      at,
      order: {
        id: orderRef,
        brandId: checkout.brandId,
        kind: "checkout",
        checkoutId: checkout.id,
        orderId: input.orderId,
        transactionId: input.transactionId,
        provider: input.provider,
        providerOrderId,
        amountCents: checkout.amountCents,
        currency: checkout.currency,
        customerEmail: input.customerEmail,
        customerName: input.customerName,
        customer: input.customer ?? checkout.customer,
        billingAddress: input.billingAddress ?? checkout.billingAddress,
        shippingAddress: input.shippingAddress ?? checkout.shippingAddress,
        paymentMethodToken: record.paymentMethodToken,
        paidInDemo: record.paidInDemo,
        crmProvider,
        crmOrderId,
        crmStatus: crmProvider === null ? null : crmOrderId ? "recorded" : canRecordInCrm ? "failed" : "skipped",
        crmCampaignId: input.crmCampaignId ?? null,
        affId: input.affId ?? null,
        subId: input.subId ?? null,
        result: completed,
        createdAt: at,
      },
      lineItems: lineItems.map((item) => ({
        id: newId("oli"),
        orderRef,
        itemId: item.id,
        name: item.name ?? null,
        quantity: item.quantity,
        unitPriceCents: item.unitPrice,
        sku: item.sku ?? null,
      })),
      commission: commission && attribution && commissionId ? commissionRow(commissionId, candidate, orderRef, input.orderId, attribution, commission, at) : null,
      events: outboxRows(now, [
        { ...common, type: "checkout.completed", data: { checkoutId: checkout.id, ...money, customerEmail: input.customerEmail } },
        { ...common, type: "payment.succeeded", data: { ...money, providerOrderId } },
        {
          ...common,
          type: "order.confirmed",
          data: { ...money, customerEmail: input.customerEmail, customerName: input.customerName, lineItems, crmOrderId, commissionId: commissionId ?? null },
        },
      ]),
    });
    return saved ? completed : null;
  };

  let result: CompleteResponse | null;
  try {
    result =
      crmProvider && canRecordInCrm
        ? // The CRM is called once, by the completion holding the checkout's row lock.
          await withTransaction(ctx.db, async (tx) => {
            if (!(await lockOpenCheckout(tx, checkout.id))) return null;
            return save(tx, await recordInCrm(ctx, tx, crmProvider, checkout.brandId, failOnCrmError, input, lineItems));
          })
        : await save(ctx.db, null);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    result = null;
  }
  if (result) {
    faultPoint(ctx.config, "complete.after-commit");
    return result;
  }

  // Lost the race to a concurrent completion of this checkout: answer with its result (CONTRACT §7).
  const winner = await findOrderOfCheckout(ctx.db, checkout.id);
  if (!winner) throw idempotencyConflict();
  return replayOrConflict(winner, input);
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

/**
 * CONTRACT §19: the provider confirms the transaction exists, belongs to this order, succeeded, and
 * matches the checkout's amount and currency (the client's `amount` is only compared, never used).
 * With several brands' checkouts for one orderId, the one whose provider order id the payment
 * carries wins; otherwise the first that verifies, preferring the checkout initialized with this provider.
 */
async function verifyPayment(ctx: Ctx, input: CompleteBody, candidates: CompletionCandidate[]): Promise<Verified> {
  const ordered = [...candidates].sort((a, b) => Number(b.checkout.provider === input.provider) - Number(a.checkout.provider === input.provider));
  let firstFailure: string | null = null;
  let fallback: Verified | null = null;
  for (const candidate of ordered) {
    const outcome = await verifyAgainst(ctx, input, candidate);
    if (typeof outcome === "string") {
      firstFailure ??= outcome;
      continue;
    }
    if (ordered.length === 1 || (outcome.providerOrderId !== null && outcome.providerOrderId === candidate.checkout.providerOrderId)) return { candidate, record: outcome };
    fallback ??= { candidate, record: outcome };
  }
  if (fallback) return fallback;
  throw paymentNotVerified(firstFailure ?? "payment_not_found");
}

/** The payment record when it verifies against this checkout, else the reason it does not. */
async function verifyAgainst(ctx: Ctx, input: CompleteBody, candidate: CompletionCandidate): Promise<VerifiedRecord | string> {
  const checkout = candidate.checkout;
  if (input.amount !== checkout.amountCents) return "amount_mismatch";
  if (input.currency.toUpperCase() !== checkout.currency) return "currency_mismatch";
  const { adapter, call } = await ctx.providers.payment(input.provider, checkout.brandId);
  let record: PaymentRecord | null;
  try {
    const providerOrderId = input.providerOrderId ?? (checkout.provider === input.provider ? (checkout.providerOrderId ?? undefined) : undefined);
    record = await adapter.findPayment({ transactionId: input.transactionId, providerOrderId }, { ...call, log: ctx.log });
  } catch (error) {
    if (error instanceof ProviderError) {
      ctx.log.warn({ provider: input.provider, retryable: error.retryable, err: error.message }, "payment lookup failed");
      throw providerFailed(input.provider);
    }
    throw error;
  }
  if (!record) return "payment_not_found";
  const belongs =
    record.orderId === input.orderId || (record.orderId === null && record.providerOrderId !== null && record.providerOrderId === checkout.providerOrderId);
  if (!belongs) return "order_mismatch";
  if (record.status !== "succeeded") return `payment_${record.status}`;
  if (record.amountCents !== checkout.amountCents) return "amount_mismatch";
  if (record.currency.toUpperCase() !== checkout.currency) return "currency_mismatch";
  return { ...record, paidInDemo: adapter.demo };
}

/**
 * Records the order in the CRM inside the completion's transaction, so it happens once, for the
 * winner. A savepoint keeps a failed CRM call from aborting the order. Without failOnCrmError a
 * failure is logged and the order completes without `crmOrderId`.
 */
async function recordInCrm(
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

function commissionRow(
  id: string,
  candidate: CompletionCandidate,
  orderRef: string,
  orderId: string,
  attribution: SalesAttribution,
  commission: CommissionAmount,
  at: Date,
) {
  return {
    id,
    organizationId: candidate.organizationId,
    brandId: candidate.checkout.brandId,
    orderRef,
    orderId,
    salespersonId: attribution.salespersonId,
    salespersonName: attribution.salespersonName ?? null,
    salespersonEmail: attribution.salespersonEmail ?? null,
    teamId: attribution.teamId ?? null,
    teamName: attribution.teamName ?? null,
    source: attribution.source ?? null,
    campaignCode: attribution.campaignCode ?? null,
    orderAmountCents: candidate.checkout.amountCents,
    commissionAmountCents: commission.commissionAmountCents,
    commissionRate: commission.commissionRate,
    commissionType: commission.commissionType,
    status: "pending" as const,
    createdAt: at,
    updatedAt: at,
  };
}

/** PostgreSQL's unique_violation, possibly wrapped by the driver or Drizzle. */
function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === "23505") return true;
  }
  return false;
}
