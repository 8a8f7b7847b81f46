import { eq } from "drizzle-orm";
import { commissionDisputeOpened, commissionDisputeWon, commissionFollowsMoney } from "../../commissions/follow-money.js";
import type { Ctx } from "../../ctx.js";
import type { Db } from "../../db/client.js";
import { orders } from "../../db/schema/index.js";
import { newId } from "../../lib/ids.js";
import { checkoutMetadataFields, enqueueEvents } from "../../outbox/events.js";
import type { DisputeNotice } from "../../providers/webhook-scheme-kit.js";
import { findDispute, hasOpenDispute, insertDispute, isClosed, isMerchantsFavour, lockCharge, refreshChargeDisputed, updateDispute, type DisputeRow, type OrderRow } from "../store.js";

type EventCtx = Pick<Ctx, "clock" | "actor" | "clientAddress" | "userAgent">;

/** The checkout whose token's webhookUrl hears of the charge: its own, or an upsell's parent's. */
async function checkoutIdOf(tx: Db, charge: OrderRow): Promise<string | null> {
  if (charge.checkoutId || !charge.parentOrderId) return charge.checkoutId;
  const [parent] = await tx.select({ checkoutId: orders.checkoutId }).from(orders).where(eq(orders.id, charge.parentOrderId));
  return parent?.checkoutId ?? null;
}

const eventOf = (dispute: DisputeRow, charge: OrderRow) => ({
  orderId: charge.orderId,
  transactionId: charge.transactionId,
  provider: charge.provider,
  amount: dispute.amountCents,
  currency: dispute.currency,
  disputeId: dispute.id,
  providerDisputeId: dispute.providerDisputeId,
  reason: dispute.reason,
  status: dispute.status,
  livemode: charge.livemode,
  // A dispute has no metadata of its own: its charge's checkout's, on the upsell orders too (issue 33).
  ...checkoutMetadataFields(charge.metadata),
});

/**
 * What a dispute's closing brings, in the transaction that closes it: the `dispute.closed` event and
 * the commission (CONTRACT §38). Money kept by the merchant gives the commission its status back, once
 * no other dispute of the charge is open; money that went back (lost, accepted) acts as a full refund.
 */
export async function onDisputeClosed(tx: Db, ctx: EventCtx, dispute: DisputeRow, charge: OrderRow): Promise<void> {
  await enqueueEvents(tx, ctx.clock.now(), [{ brandId: dispute.brandId, checkoutId: await checkoutIdOf(tx, charge), type: "dispute.closed", data: eventOf(dispute, charge) }]);
  if (!isMerchantsFavour(dispute.status)) await commissionFollowsMoney(tx, ctx, charge, charge.amountCents, { disputeId: dispute.id });
  else if (!(await hasOpenDispute(tx, charge.id))) await commissionDisputeWon(tx, ctx, charge.id, dispute.id);
  await refreshChargeDisputed(tx, charge.id);
}

/**
 * A provider's word on a dispute of `charge`, in the transaction that stores the notification: the
 * first creates the dispute (`dispute.created`, the commission held `disputed`), later ones update
 * amount, reason, due date and status. A closed dispute stays as it closed, so a late or repeated
 * notice changes nothing. The charge row is locked first: notices, refunds and the merchant's answers
 * of one charge apply one at a time.
 */
export async function recordDisputeNotice(tx: Db, ctx: EventCtx, charge: OrderRow, notice: DisputeNotice): Promise<void> {
  await lockCharge(tx, charge.id);
  const now = new Date(ctx.clock.now());
  const existing = await findDispute(tx, charge.brandId, charge.provider, notice.providerDisputeId);
  if (existing && isClosed(existing.status)) return;
  const fields = {
    amountCents: notice.amountCents ?? existing?.amountCents ?? charge.amountCents,
    currency: notice.currency ?? existing?.currency ?? charge.currency,
    reason: notice.reason ?? existing?.reason ?? null,
    dueAt: notice.dueAt !== null ? new Date(notice.dueAt) : (existing?.dueAt ?? null),
    status: notice.status,
    closedAt: isClosed(notice.status) ? now : null,
    updatedAt: now,
  };
  let dispute: DisputeRow;
  if (existing) dispute = await updateDispute(tx, existing.id, fields);
  else {
    dispute = await insertDispute(tx, { id: newId("dsp"), brandId: charge.brandId, orderRef: charge.id, orderId: charge.orderId, provider: charge.provider, providerDisputeId: notice.providerDisputeId, livemode: charge.livemode, ...fields, createdAt: now });
    const event = { ...eventOf(dispute, charge), dueBy: dispute.dueAt?.getTime() ?? null };
    await enqueueEvents(tx, now.getTime(), [{ brandId: charge.brandId, checkoutId: await checkoutIdOf(tx, charge), type: "dispute.created", data: event }]);
    await commissionDisputeOpened(tx, ctx, charge.id, dispute.id);
  }
  if (isClosed(dispute.status)) await onDisputeClosed(tx, ctx, dispute, charge);
  else await refreshChargeDisputed(tx, charge.id);
}
