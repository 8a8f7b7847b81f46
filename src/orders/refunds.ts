import { recordAudit } from "../audit/record.js";
import { commissionFollowsMoney } from "../commissions/follow-money.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, brandOfScope } from "../http/auth.js";
import { bindResource, ofBrand, oncePerKey } from "../http/idempotent-effects.js";
import { AppError, conflict, notFound, validationError } from "../lib/errors.js";
import { faultPoint } from "../lib/fault-points.js";
import { newId } from "../lib/ids.js";
import { assertScope } from "../merchant-credentials/api-key-caller.js";
import { otherModeNotFound } from "../merchant-credentials/errors.js";
import { enqueueEvents } from "../outbox/events.js";
import { recordRefundStats } from "../payments/approval-stats.js";
import type { ResolvedProvider } from "../providers/registry.js";
import type { PaymentProvider, PaymentProviderType, RefundInput, RefundOutcome } from "../providers/types.js";
import { recordFunnelRefund } from "../upsell/funnel/counters.js";
import type { MerchantOrderIdParams, OrderIdParams, RefundBody, RefundReply, RefundView } from "./schemas.js";
import { addRefunded, findApprovedCardOf, findCheckoutOrder, findRefund, findUpsellsOf, heldByRefunds, insertRefund, lockCharge, settleRefund, type OrderRow, type RefundRow } from "./store.js";

export const refundViewOf = (row: RefundRow): RefundView => ({
  id: row.id,
  orderId: row.orderId,
  chargeId: row.orderRef,
  amount: row.amountCents,
  currency: row.currency,
  status: row.status,
  reason: row.reason,
  providerRefundId: row.providerRefundId,
  metadata: row.metadata,
  createdAt: row.createdAt.getTime(),
});

/**
 * A refund stays `pending` when its request died between the provider's answer and our commit (a
 * crash), or when the provider failed (502, timeout). Past this grace, longer than the request's own
 * provider call (10 s), the reconciler (refund-reconciler.ts) asks the provider again with the same
 * idempotency key: the provider answers the refund it already made, or makes it once, and the answer
 * settles the row.
 */
export const RECONCILE_AFTER_MS = 60_000;

const refundFailed = (reason: string) => new AppError("REFUND_FAILED", `Refund failed: ${reason}`, reason);

/** The charge a refund names: the order's own payment (default) or one of its upsells', by our id or its order id. */
async function chargeOf(ctx: Ctx, brandId: string, order: OrderRow, charge: string | undefined): Promise<OrderRow> {
  if (charge === undefined || charge === order.id || charge === order.orderId) return order;
  const upsell = (await findUpsellsOf(ctx.db, brandId, [order.id])).find((u) => u.id === charge || u.orderId === charge);
  if (!upsell) throw new AppError("NOT_FOUND", "Charge not found", "charge");
  return upsell;
}

const refundInputOf = (charge: OrderRow, refund: RefundRow): RefundInput => ({
  transactionId: charge.transactionId,
  providerOrderId: charge.providerOrderId,
  orderId: charge.orderId,
  amountCents: refund.amountCents,
  currency: refund.currency,
  reason: refund.reason,
});

/**
 * The adapter that gives a charge's money back, by the charge's stored mode and `paidInDemo` (issue 33),
 * never by the brand's settings now. A test charge paid in demo has its money in the demo ledger, so it
 * goes back through the demo adapter even after the brand saved credentials (and with PAYMENT_MODE=live:
 * a refund charges nothing); a test charge paid at a provider's sandbox goes back to that sandbox with
 * the brand's test credentials; a live charge through the live credentials (409 without them).
 */
export async function refundProviderOf(ctx: Ctx, brandId: string, charge: OrderRow, checkout: Pick<OrderRow, "paidInDemo" | "livemode">): Promise<ResolvedProvider<PaymentProvider>> {
  const provider = charge.provider as PaymentProviderType;
  return ctx.providers.paymentOf(provider, brandId, { livemode: chargeLivemode(charge, checkout), paidInDemo: charge.paidInDemo ?? checkout.paidInDemo });
}

/**
 * A charge's mode: its own `livemode`. Upsell rows from before they recorded how they were paid
 * (`paid_in_demo` null) follow their order: an upsell is charged on its order's saved method, which
 * only the adapter that issued it can charge.
 */
export const chargeLivemode = (charge: Pick<OrderRow, "paidInDemo" | "livemode">, checkout: Pick<OrderRow, "livemode">): boolean =>
  charge.paidInDemo === null ? checkout.livemode : charge.livemode;

/**
 * Asks the provider for a reserved refund, with the refund's id as idempotency key: every adapter
 * answers a repeat with the first outcome and never refunds twice, so the request and the reconciler
 * may both call this for one refund.
 */
export const refundAt = ({ adapter, call }: ResolvedProvider<PaymentProvider>, charge: OrderRow, refund: RefundRow): Promise<RefundOutcome> =>
  adapter.refund(refundInputOf(charge, refund), { ...call, idempotencyKey: refund.id });

/**
 * Settles a pending refund with the provider's answer: the row, the charge's refunded total, the
 * commission's move (CONTRACT §38), the event and the audit record in one transaction. Used by the
 * request and by the reconciler (refund-reconciler.ts); whichever comes second finds the row settled
 * and changes nothing.
 */
export async function settleRefundWith(ctx: Ctx, of: { refund: RefundRow; charge: OrderRow; checkout: Pick<OrderRow, "id" | "checkoutId" | "paidInDemo" | "livemode"> }, outcome: RefundOutcome): Promise<RefundRow> {
  const { refund, charge, checkout } = of;
  return withTransaction(ctx.db, async (tx) => {
    const at = new Date(ctx.clock.now());
    const succeeded = outcome.status === "succeeded";
    const patch = succeeded
      ? { status: "succeeded" as const, providerRefundId: outcome.providerRefundId, failureReason: null, updatedAt: at }
      : { status: "failed" as const, providerRefundId: null, failureReason: outcome.reason, updatedAt: at };
    if (!(await settleRefund(tx, refund.id, patch))) return (await findRefund(tx, refund.id))!;
    const money = { orderId: charge.orderId, transactionId: charge.transactionId, provider: charge.provider, amount: refund.amountCents, currency: refund.currency, refundId: refund.id, reason: refund.reason,
      // The same rule as refundProviderOf: an upsell without its own mark follows its order.
      livemode: chargeLivemode(charge, checkout),
      // Issue 33: the refund's own metadata, and the checkout's (on every order of the checkout, upsells' too).
      metadata: refund.metadata, checkoutMetadata: charge.metadata };
    let event;
    if (outcome.status === "succeeded") {
      const refundedTotal = await addRefunded(tx, charge.id, refund.amountCents);
      // CONTRACT §38: the charge's commission follows, in this transaction, so exactly once with the refund.
      await commissionFollowsMoney(tx, ctx, charge, refundedTotal, { refundId: refund.id });
      // A funnel's upsell charge: its step's refunded amount follows, in this transaction (docs/funnels.md).
      if (charge.kind === "upsell") await recordFunnelRefund(tx, charge.id, refund.amountCents, at);
      // A checkout's charge: approval analytics net it on the charge's day (docs/orchestration.md "Approval analytics").
      else {
        // The approved attempt's card (the pay path keeps one; the old endpoints none): the refund nets into its card-brand and BIN-country rows.
        const card = await findApprovedCardOf(tx, charge);
        await recordRefundStats(tx, { brandId: refund.brandId, livemode: money.livemode, provider: charge.provider, currency: charge.currency, chargedAt: charge.createdAt, chargeAmountCents: charge.amountCents, amountCents: refund.amountCents, at, cardBrand: card?.cardBrand, binCountry: card?.binCountry });
      }
      event = { type: "refund.succeeded" as const, data: { ...money, providerRefundId: outcome.providerRefundId, refundedTotal } };
    } else {
      event = { type: "refund.failed" as const, data: { ...money, failureReason: outcome.reason } };
    }
    await enqueueEvents(tx, at.getTime(), [{ brandId: refund.brandId, checkoutId: checkout.checkoutId, ...event }]);
    await recordAudit(tx, ctx, {
      action: "order.refund",
      resourceType: "order",
      resourceId: checkout.id,
      brandId: refund.brandId,
      success: succeeded,
      details: { refundId: refund.id, chargeId: charge.id, amount: refund.amountCents, currency: refund.currency, reason: refund.reason, ...(succeeded ? {} : { failureReason: patch.failureReason }) },
    });
    return { ...refund, ...patch };
  });
}

/**
 * Gives money back on one charge (issue 17, CONTRACT §38). The amount is reserved first: a `pending`
 * refund row written under a lock on the charge, so refunds of one charge never sum past it, also
 * when many arrive at once. Then the provider is asked, with the refund's id as its idempotency key
 * (a repeat can never refund twice), and the answer settles the row with its event and audit record
 * in one transaction. A provider error (502) leaves the refund pending: nothing is marked refunded
 * unless the provider said so.
 *
 * An Idempotency-Key is bound to the pending row in the transaction that writes it, before the
 * provider hears of it (CONTRACT §40): a retry, also after a crash and after the HTTP reservation was
 * taken over, answers that refund's state (pending: `status: "pending"`, which the routes answer 202)
 * and never starts another.
 */
export async function refundOrderCharge(ctx: Ctx, brandId: string, where: OrderWhere, body: RefundBody, requestedBy: string): Promise<RefundReply> {
  return oncePerKey(ctx, ofBrand(brandId, "refund"), {
    answer: (refundId) => stateOfRefund(ctx, brandId, refundId),
    make: () => makeRefund(ctx, brandId, where, body, requestedBy),
  });
}

/** What a refund a key already made answers now: pending or succeeded as the refund, failed as the 402 its request answered. */
async function stateOfRefund(ctx: Ctx, brandId: string, refundId: string): Promise<RefundReply> {
  const refund = await findRefund(ctx.db, refundId);
  // The key space is the brand's: its effect names a refund of the brand (belt and braces).
  if (!refund || refund.brandId !== brandId) throw notFound("Refund not found");
  if (refund.status === "failed") throw refundFailed(refund.failureReason ?? "refused");
  return { success: true, refund: refundViewOf(refund) };
}

/** An order by our id or the merchant's; with `livemode` (an API key's), only of that mode (CONTRACT §39). */
type OrderWhere = ({ id: string } | { orderId: string }) & { livemode?: boolean };

async function makeRefund(ctx: Ctx, brandId: string, where: OrderWhere, body: RefundBody, requestedBy: string): Promise<RefundReply> {
  const order = await findCheckoutOrder(ctx.db, brandId, where);
  if (!order) throw notFound("Order not found");
  // An API key refunds only orders of its mode (issue 33): a test key never moves live money.
  if (where.livemode !== undefined && order.livemode !== where.livemode) throw otherModeNotFound("Order", where.livemode);
  const charge = await chargeOf(ctx, brandId, order, body.charge);
  // Before anything is written: a live charge whose provider has no credentials any more is 409 here.
  const provider = await refundProviderOf(ctx, brandId, charge, order);

  const now = new Date(ctx.clock.now());
  const pending = await withTransaction(ctx.db, async (tx) => {
    const locked = (await lockCharge(tx, charge.id))!;
    const id = newId("rfd");
    // First under the lock: a repeat that waited for it finds the key bound, not "more than is left".
    await bindResource(tx, ctx, ofBrand(brandId, "refund"), id);
    // Money a dispute holds or took back is not ours to refund (the gateways refuse it as well).
    if (locked.disputed) throw conflict("Charge is disputed: answer the dispute instead", "CHARGE_DISPUTED");
    const left = locked.amountCents - (await heldByRefunds(tx, charge.id));
    if (left <= 0) throw conflict("Charge already fully refunded", "ALREADY_REFUNDED");
    const amountCents = body.amount ?? left;
    if (amountCents > left) throw validationError(`Invalid request: amount is more than the ${left} left to refund`, "amount");
    return insertRefund(tx, {
      id,
      brandId,
      orderRef: charge.id,
      orderId: charge.orderId,
      provider: charge.provider,
      amountCents,
      currency: charge.currency,
      livemode: chargeLivemode(charge, order),
      reason: body.reason,
      note: body.note ?? null,
      metadata: body.metadata ?? {},
      status: "pending",
      requestedBy,
      nextAttemptAt: new Date(now.getTime() + RECONCILE_AFTER_MS),
      createdAt: now,
      updatedAt: now,
    });
  });

  const outcome = await refundAt(provider, charge, pending);
  faultPoint(ctx.config, "refund.after-provider");
  const settled = await settleRefundWith(ctx, { refund: pending, charge, checkout: order }, outcome);
  if (settled.status === "failed") throw refundFailed(settled.failureReason ?? "refused");
  return { success: true, refund: refundViewOf(settled) };
}

/** `POST /api/admin/orders/<id>/refunds`: admin or owner, an order of the session's brand. */
export async function refundOrder({ ctx, input }: { ctx: Ctx; input: OrderIdParams & { body: RefundBody } }): Promise<RefundReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  return refundOrderCharge(ctx, brandId, { id: input.id }, input.body, `user:${scope.userId}`);
}

/** `POST /api/v1/orders/<orderId>/refunds` (scope orders:refund): an order of the key's brand and mode (another mode's is 404). */
export async function refundMerchantOrder({ ctx, input }: { ctx: Ctx; input: MerchantOrderIdParams & { body: RefundBody } }): Promise<RefundReply> {
  const key = await assertScope(ctx, "orders:refund");
  return refundOrderCharge(ctx, key.brandId, { orderId: input.orderId, livemode: key.livemode }, input.body, `api:${key.id}`);
}
