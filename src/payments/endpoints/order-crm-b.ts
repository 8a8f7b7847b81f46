import type { Ctx } from "../../ctx.js";
import { chargeOnce } from "../charge-once.js";
import { attemptPayment, declineOfCharge, resolvePayment, succeededCharge } from "../attempts.js";
import { cardOf } from "../../providers/schemas.js";
import { PROVIDER } from "../../providers/order-crm-b/provider.js";
import type { CrmBPaymentBody, CrmBPaymentReply } from "../../providers/order-crm-b/schemas.js";

/** Creates the CRM order from the line items and charges its total by card. */
export async function payCrmBOrder(ctx: Ctx, body: CrmBPaymentBody): Promise<CrmBPaymentReply> {
  const { order, adapter, call, within } = await resolvePayment(ctx, PROVIDER, { orderId: body.orderId });
  const card = cardOf(body);
  const input = {
    orderId: body.orderId,
    campaignId: body.campaignId,
    customer: body.customer,
    billingAddress: body.billingAddress,
    shippingAddress: body.shippingAddress ?? null,
    lineItems: body.lineItems,
    currency: (body.currency ?? "USD").toUpperCase(),
    card,
  };
  return chargeOnce(ctx, { provider: PROVIDER, brandId: order.brandId, orderId: body.orderId, completed: order.completed, request: body, call }, async (call) => {
    const charge = await attemptPayment(ctx, {
      provider: PROVIDER,
      orderId: body.orderId,
      card,
      charge: (tx) => within(tx).processPayment(input, call),
      declineOf: declineOfCharge,
    });
    const { transactionId, paymentMethodToken } = succeededCharge(charge.outcome);
    return { success: true, transactionId, orderId: body.orderId, crmBOrderId: charge.providerOrderId, paymentMethodToken, demo: adapter.demo };
  });
}
