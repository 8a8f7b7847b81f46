import { recordAudit } from "../../audit/record.js";
import type { Ctx } from "../../ctx.js";
import { withTransaction } from "../../db/transaction.js";
import { assertRole, brandOfScope } from "../../http/auth.js";
import { conflict, notFound } from "../../lib/errors.js";
import { newId } from "../../lib/ids.js";
import { disputeViewOf, findCheckoutOrder, findDispute, findUpsellsOf } from "../store.js";
import { recordDisputeNotice } from "./record.js";
import type { DisputeReply, SimulateDisputeBody } from "./schemas.js";

/** How long a simulated dispute gives for evidence, as card networks usually do. */
const SIMULATED_EVIDENCE_DAYS = 7;

/**
 * `POST /api/admin/orders/<id>/disputes/simulate` (admin or owner, issue 33): a dispute of a TEST
 * charge, as a provider's notification would bring it, so a merchant can try the dispute flow
 * (events, commission, answers) without real money. The same `providerDisputeId` with another
 * status moves that dispute on (`won`, `lost`…). A live charge is 409: only a provider opens those.
 */
export async function simulateDispute({ ctx, input }: { ctx: Ctx; input: { id: string; body: SimulateDisputeBody } }): Promise<DisputeReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  const order = await findCheckoutOrder(ctx.db, brandId, { id: input.id });
  if (!order) throw notFound("Order not found");
  const { body } = input;
  const charge = body.charge ? (await findUpsellsOf(ctx.db, brandId, [order.id])).find((c) => c.orderId === body.charge || c.id === body.charge) : order;
  if (!charge) throw notFound("Charge not found");
  if (charge.livemode) throw conflict("Disputes can be simulated on test charges only", "CONFLICT");
  const providerDisputeId = body.providerDisputeId ?? `dp_test_${newId("sim").slice(4)}`;
  const now = ctx.clock.now();
  await withTransaction(ctx.db, async (tx) => {
    await recordDisputeNotice(tx, ctx, charge, {
      providerDisputeId,
      transactionId: charge.transactionId,
      orderId: charge.orderId,
      amountCents: body.amount ?? null,
      currency: null,
      reason: body.reason ?? "fraudulent",
      status: body.status ?? "needs_response",
      dueAt: now + SIMULATED_EVIDENCE_DAYS * 24 * 3600 * 1000,
    });
    await recordAudit(tx, ctx, { action: "dispute.simulate", resourceType: "order", resourceId: order.id, brandId, success: true, details: { chargeId: charge.id, providerDisputeId, status: body.status ?? "needs_response" } });
  });
  const dispute = (await findDispute(ctx.db, brandId, charge.provider, providerDisputeId))!;
  return { success: true, dispute: disputeViewOf(dispute) };
}
