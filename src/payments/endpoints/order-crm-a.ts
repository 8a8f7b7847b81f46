import type { Ctx } from "../../ctx.js";
import { payOrderByCard, resolvePayment } from "../attempts.js";
import { PROVIDER } from "../../providers/order-crm-a/provider.js";
import type { ConfirmCrmAOrderBody, ConfirmCrmAOrderReply, CreateCrmAOrderBody, CreateCrmAOrderReply, CrmAPaymentBody, CrmAPaymentReply } from "../../providers/order-crm-a/schemas.js";

export async function createCrmAOrder(ctx: Ctx, body: CreateCrmAOrderBody): Promise<CreateCrmAOrderReply> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const { total, currency, ...rest } = body;
  const { crmAOrderId } = await adapter.createOrder({ ...rest, totalCents: total, currency: currency.toUpperCase() }, call);
  return { success: true, crmAOrderId, demo: adapter.demo };
}

/** Charges the CRM order's total with the card. */
export const payCrmAOrder = (ctx: Ctx, body: CrmAPaymentBody): Promise<CrmAPaymentReply> =>
  payOrderByCard(
    ctx,
    PROVIDER,
    body,
    (adapter, card, call) => adapter.processPayment({ crmAOrderId: body.crmAOrderId, orderId: body.orderId, card }, call),
    (charge, { transactionId }) => ({ success: true, transactionId, crmAOrderId: charge.providerOrderId }),
  );

/** Marks a paid CRM order confirmed (for fulfilment); idempotent. */
export async function confirmCrmAOrder(ctx: Ctx, body: ConfirmCrmAOrderBody): Promise<ConfirmCrmAOrderReply> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const confirmed = await adapter.confirmOrder(body, call);
  return { success: true, crmAOrderId: confirmed.providerOrderId, orderId: confirmed.orderId, status: confirmed.status, demo: adapter.demo };
}
