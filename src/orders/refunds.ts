import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import type { ApiActor } from "../http/api-key.js";
import { assertRole, brandOfScope } from "../http/auth.js";
import { AppError, conflict, notFound, validationError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { enqueueEvents } from "../webhooks/events.js";
import type { MerchantOrderIdParams, OrderIdParams, RefundBody, RefundReply, RefundView } from "./schemas.js";
import { addRefunded, findCheckoutOrder, findUpsellsOf, heldByRefunds, insertRefund, lockCharge, settleRefund, type OrderRow, type RefundRow } from "./store.js";

export const refundViewOf = (row: RefundRow): RefundView => ({
  id: row.id,
  orderId: row.orderId,
  chargeId: row.orderRef,
  amount: row.amountCents,
  currency: row.currency,
  status: row.status,
  reason: row.reason,
  providerRefundId: row.providerRefundId,
  createdAt: row.createdAt.getTime(),
});

const refundFailed = (reason: string) => new AppError("REFUND_FAILED", `Refund failed: ${reason}`, reason);

/** The charge a refund names: the order's own payment (default) or one of its upsells', by our id or its order id. */
async function chargeOf(ctx: Ctx, brandId: string, order: OrderRow, charge: string | undefined): Promise<OrderRow> {
  if (charge === undefined || charge === order.id || charge === order.orderId) return order;
  const upsell = (await findUpsellsOf(ctx.db, brandId, [order.id])).find((u) => u.id === charge || u.orderId === charge);
  if (!upsell) throw new AppError("NOT_FOUND", "Charge not found", "charge");
  return upsell;
}

/**
 * Gives money back on one charge (issue 17, CONTRACT §38). The amount is reserved first: a `pending`
 * refund row written under a lock on the charge, so refunds of one charge never sum past it, also
 * when many arrive at once. Then the provider is asked, with the refund's id as its idempotency key
 * (a repeat can never refund twice), and the answer settles the row with its event and audit record
 * in one transaction. A provider error (502) leaves the refund pending: nothing is marked refunded
 * unless the provider said so.
 */
export async function refundOrderCharge(ctx: Ctx, brandId: string, where: { id: string } | { orderId: string }, body: RefundBody, requestedBy: string): Promise<RefundReply> {
  const order = await findCheckoutOrder(ctx.db, brandId, where);
  if (!order) throw notFound("Order not found");
  const charge = await chargeOf(ctx, brandId, order, body.charge);
  const { adapter, call } = await ctx.providers.payment(charge.provider as Parameters<Ctx["providers"]["payment"]>[0], brandId);
  if (!adapter.refund) throw conflict(`Refunds through ${charge.provider} are not available yet`, "REFUND_NOT_SUPPORTED");

  const now = new Date(ctx.clock.now());
  const pending = await withTransaction(ctx.db, async (tx) => {
    const locked = (await lockCharge(tx, charge.id))!;
    const left = locked.amountCents - (await heldByRefunds(tx, charge.id));
    if (left <= 0) throw conflict("Charge already fully refunded", "ALREADY_REFUNDED");
    const amountCents = body.amount ?? left;
    if (amountCents > left) throw validationError(`Invalid request: amount is more than the ${left} left to refund`, "amount");
    return insertRefund(tx, {
      id: newId("rfd"),
      brandId,
      orderRef: charge.id,
      orderId: charge.orderId,
      provider: charge.provider,
      amountCents,
      currency: charge.currency,
      reason: body.reason,
      note: body.note ?? null,
      status: "pending",
      requestedBy,
      createdAt: now,
      updatedAt: now,
    });
  });

  const outcome = await adapter.refund(
    { transactionId: charge.transactionId, providerOrderId: charge.providerOrderId, orderId: charge.orderId, amountCents: pending.amountCents, currency: pending.currency, reason: pending.reason },
    { ...call, idempotencyKey: pending.id },
  );

  const settled = await withTransaction(ctx.db, async (tx) => {
    const at = new Date(ctx.clock.now());
    const succeeded = outcome.status === "succeeded";
    const patch = succeeded
      ? { status: "succeeded" as const, providerRefundId: outcome.providerRefundId, failureReason: null, updatedAt: at }
      : { status: "failed" as const, providerRefundId: null, failureReason: outcome.reason, updatedAt: at };
    if (!(await settleRefund(tx, pending.id, patch))) return { ...pending, ...patch };
    const money = { orderId: charge.orderId, transactionId: charge.transactionId, provider: charge.provider, amount: pending.amountCents, currency: pending.currency, refundId: pending.id, reason: pending.reason };
    const event =
      outcome.status === "succeeded"
        ? { type: "refund.succeeded" as const, data: { ...money, providerRefundId: outcome.providerRefundId, refundedTotal: await addRefunded(tx, charge.id, pending.amountCents) } }
        : { type: "refund.failed" as const, data: { ...money, failureReason: outcome.reason } };
    await enqueueEvents(tx, at.getTime(), [{ brandId, checkoutId: order.checkoutId, ...event }]);
    await recordAudit(tx, ctx, {
      action: "order.refund",
      resourceType: "order",
      resourceId: order.id,
      brandId,
      success: succeeded,
      details: { refundId: pending.id, chargeId: charge.id, amount: pending.amountCents, currency: pending.currency, reason: pending.reason, ...(succeeded ? {} : { failureReason: patch.failureReason }) },
    });
    return { ...pending, ...patch };
  });
  if (settled.status === "failed") throw refundFailed(settled.failureReason ?? "refused");
  return { success: true, refund: refundViewOf(settled) };
}

/** `POST /api/admin/orders/<id>/refunds`: admin or owner, an order of the session's brand. */
export async function refundOrder({ ctx, input }: { ctx: Ctx; input: OrderIdParams & { body: RefundBody } }): Promise<RefundReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  return refundOrderCharge(ctx, brandId, { id: input.id }, input.body, `user:${scope.userId}`);
}

/** `POST /api/v1/orders/<orderId>/refunds`: scope orders:refund (the route's guard), the key's brand. */
export const refundMerchantOrder = ({ ctx, actor, input }: { ctx: Ctx; actor: ApiActor; input: MerchantOrderIdParams & { body: RefundBody } }) =>
  refundOrderCharge(ctx, actor.brandId, { orderId: input.orderId }, input.body, `api:${actor.id}`);
