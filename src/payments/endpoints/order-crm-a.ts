import type { Ctx } from "../../ctx.js";
import { chargeOnce } from "../charge-once.js";
import { attemptPayment, declineOfCharge, resolvePayment, succeededCharge } from "../attempts.js";
import { cardOf } from "../../providers/schemas.js";
import { PROVIDER } from "../../providers/order-crm-a/provider.js";
import type { ConfirmCrmAOrderBody, ConfirmCrmAOrderReply, CreateCrmAOrderBody, CreateCrmAOrderReply, CrmAPaymentBody, CrmAPaymentReply } from "../../providers/order-crm-a/schemas.js";

export async function createCrmAOrder(ctx: Ctx, body: CreateCrmAOrderBody): Promise<CreateCrmAOrderReply> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const { total, currency, ...rest } = body;
  const { crmAOrderId } = await adapter.createOrder({ ...rest, totalCents: total, currency: currency.toUpperCase() }, call);
  return { success: true, crmAOrderId, demo: adapter.demo };
}

/** Charges the CRM order's total with the card. */
export async function payCrmAOrder(ctx: Ctx, body: CrmAPaymentBody): Promise<CrmAPaymentReply> {
  const { order, call, within } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const card = cardOf(body);
  return chargeOnce(ctx, { provider: PROVIDER, brandId: order.brandId, orderId: body.orderId, completed: order.completed, request: body, call }, async (call) => {
    const charge = await attemptPayment(ctx, {
      provider: PROVIDER,
      orderId: body.orderId,
      card,
      charge: (tx) => within(tx).processPayment({ crmAOrderId: body.crmAOrderId, orderId: body.orderId, card }, call),
      declineOf: declineOfCharge,
    });
    return { success: true, transactionId: succeededCharge(charge.outcome).transactionId, crmAOrderId: charge.providerOrderId };
  });
}

/** Marks a paid CRM order confirmed (for fulfilment); idempotent. */
export async function confirmCrmAOrder(ctx: Ctx, body: ConfirmCrmAOrderBody): Promise<ConfirmCrmAOrderReply> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const confirmed = await adapter.confirmOrder(body, call);
  return { success: true, crmAOrderId: confirmed.providerOrderId, orderId: confirmed.orderId, status: confirmed.status, demo: adapter.demo };
}
