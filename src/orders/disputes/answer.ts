import { recordAudit } from "../../audit/record.js";
import type { Ctx } from "../../ctx.js";
import { withTransaction } from "../../db/transaction.js";
import { assertRole, brandOfScope } from "../../http/auth.js";
import { AppError, conflict, notFound } from "../../lib/errors.js";
import type { DisputeAnswerOutcome, PaymentProvider, ProviderCall } from "../../providers/types.js";
import { disputeViewOf, findCheckoutOrder, findDisputeById, findUpsellsOf, isClosed, lockCharge, updateDispute, type DisputeRow, type OrderRow } from "../store.js";
import { onDisputeClosed } from "./record.js";
import type { DisputeParams, DisputeReply, EvidenceBody } from "./schemas.js";

const closedAlready = () => conflict("Dispute is already closed", "DISPUTE_CLOSED");

/** The dispute of one of the order's charges, for an admin or owner of the order's brand; 404 for another brand's order. */
async function disputeOfOrder(ctx: Ctx, params: DisputeParams): Promise<{ brandId: string; dispute: DisputeRow; charge: OrderRow }> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  const order = await findCheckoutOrder(ctx.db, brandId, { id: params.id });
  if (!order) throw notFound("Order not found");
  const charges = [order, ...(await findUpsellsOf(ctx.db, brandId, [order.id]))];
  const dispute = await findDisputeById(ctx.db, params.disputeId);
  const charge = charges.find((c) => c.id === dispute?.orderRef);
  if (!dispute || !charge) throw notFound("Dispute not found");
  if (isClosed(dispute.status)) throw closedAlready();
  return { brandId, dispute, charge };
}

/**
 * Sends the answer to the provider when its adapter has the call (false: kept with us only). Before
 * anything is written: a refusal (409) or a provider error (502) changes nothing here.
 */
async function sendAnswer(ctx: Ctx, brandId: string, charge: OrderRow, answer: (adapter: PaymentProvider, call: ProviderCall) => Promise<DisputeAnswerOutcome> | undefined): Promise<boolean> {
  // The charge's stored mode (issue 33): a test dispute is answered to the demo adapter, also on a brand with real credentials.
  const { adapter, call } = await ctx.providers.payment(charge.provider as Parameters<Ctx["providers"]["payment"]>[0], brandId, charge.livemode);
  const outcome = await answer(adapter, call);
  if (outcome?.status === "refused") throw new AppError("DISPUTE_REFUSED", `Dispute answer refused: ${outcome.reason}`, outcome.reason);
  return outcome !== undefined;
}

/**
 * `POST /api/admin/orders/<id>/disputes/<disputeId>/accept`: the merchant gives the disputed money up.
 * The provider is told first (the intent gateway's close call); then, under the charge's lock, the
 * dispute closes as `accepted` with what a lost dispute brings (event, commission) and an audit record.
 * A notification that closed it meanwhile wins: its status stays.
 */
export async function acceptDispute({ ctx, input }: { ctx: Ctx; input: DisputeParams }): Promise<DisputeReply> {
  const { brandId, dispute, charge } = await disputeOfOrder(ctx, input);
  const sent = await sendAnswer(ctx, brandId, charge, (adapter, call) => adapter.acceptDispute?.({ providerDisputeId: dispute.providerDisputeId }, call));
  const closed = await withTransaction(ctx.db, async (tx) => {
    await lockCharge(tx, charge.id);
    const current = (await findDisputeById(tx, dispute.id))!;
    if (isClosed(current.status)) return current;
    const now = new Date(ctx.clock.now());
    const accepted = await updateDispute(tx, dispute.id, { status: "accepted", closedAt: now, updatedAt: now });
    await onDisputeClosed(tx, ctx, accepted, charge);
    await recordAudit(tx, ctx, { action: "dispute.accept", resourceType: "order", resourceId: charge.parentOrderId ?? charge.id, brandId, success: true, details: { disputeId: dispute.id, chargeId: charge.id, sentToProvider: sent } });
    return accepted;
  });
  return { success: true, dispute: disputeViewOf(closed) };
}

/**
 * `POST /api/admin/orders/<id>/disputes/<disputeId>/evidence`: the merchant's evidence text. Sent to the
 * provider where its API takes it (the intent gateway's dispute update, submitted at once; the dispute
 * is then `under_review`); elsewhere kept with us only (`evidenceSent: false`). The audit record keeps
 * the text's length, not the text (it may name the buyer).
 */
export async function submitDisputeEvidence({ ctx, input }: { ctx: Ctx; input: DisputeParams & { body: EvidenceBody } }): Promise<DisputeReply> {
  const { brandId, dispute, charge } = await disputeOfOrder(ctx, input);
  const text = input.body.text;
  const sent = await sendAnswer(ctx, brandId, charge, (adapter, call) => adapter.submitDisputeEvidence?.({ providerDisputeId: dispute.providerDisputeId, evidence: text }, call));
  const updated = await withTransaction(ctx.db, async (tx) => {
    await lockCharge(tx, charge.id);
    const current = (await findDisputeById(tx, dispute.id))!;
    const now = new Date(ctx.clock.now());
    const row = await updateDispute(tx, dispute.id, {
      evidence: text,
      evidenceSubmittedAt: now,
      evidenceSent: sent,
      status: sent && !isClosed(current.status) ? "under_review" : current.status,
      updatedAt: now,
    });
    await recordAudit(tx, ctx, { action: "dispute.evidence", resourceType: "order", resourceId: charge.parentOrderId ?? charge.id, brandId, success: true, details: { disputeId: dispute.id, chargeId: charge.id, length: text.length, sentToProvider: sent } });
    return row;
  });
  return { success: true, dispute: disputeViewOf(updated) };
}
