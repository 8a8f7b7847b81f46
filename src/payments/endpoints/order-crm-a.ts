import type { Ctx } from "../../ctx.js";
import { assertExpectedCharge } from "../../providers/schemas.js";
import { expectedChargeOf, payOrderByCard, resolvePayment } from "../attempts.js";
import { PROVIDER } from "../../providers/order-crm-a/provider.js";
import type { ConfirmCrmAOrderBody, ConfirmCrmAOrderReply, CreateCrmAOrderBody, CreateCrmAOrderReply, CrmAPaymentBody, CrmAPaymentReply } from "./order-crm-a-schemas.js";

/** create-order: the CRM order process-payment charges; its total and currency must be the checkout's (when one is initialized). */
export async function createCrmAOrder(ctx: Ctx, body: CreateCrmAOrderBody): Promise<CreateCrmAOrderReply> {
  const { total, currency, ...rest } = body;
  const { order, adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId }, { amountCents: total, currency });
  assertExpectedCharge(expectedChargeOf(order), { amountCents: total, currency }, { amount: "total", currency: "currency" });
  const { crmAOrderId } = await adapter.createOrder({ ...rest, totalCents: total, currency: currency.toUpperCase() }, call);
  return { success: true, crmAOrderId, demo: adapter.demo };
}

/** Charges the CRM order's total with the card; a CRM order of another amount than the checkout's is refused before the charge. */
export const payCrmAOrder = (ctx: Ctx, body: CrmAPaymentBody): Promise<CrmAPaymentReply> =>
  payOrderByCard(
    ctx,
    PROVIDER,
    body,
    (adapter, card, call, expected) => adapter.processPayment({ crmAOrderId: body.crmAOrderId, orderId: body.orderId, card, expected }, call),
    (charge, { transactionId }) => ({ success: true, transactionId, crmAOrderId: charge.providerOrderId }),
  );

/** Marks a paid CRM order confirmed (for fulfilment); idempotent. */
export async function confirmCrmAOrder(ctx: Ctx, body: ConfirmCrmAOrderBody): Promise<ConfirmCrmAOrderReply> {
  const { adapter, call } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const confirmed = await adapter.confirmOrder(body, call);
  return { success: true, crmAOrderId: confirmed.providerOrderId, orderId: confirmed.orderId, status: confirmed.status, demo: adapter.demo };
}
