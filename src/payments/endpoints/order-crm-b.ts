import type { Ctx } from "../../ctx.js";
import { lineItemsTotal } from "../../providers/schemas.js";
import { payOrderByCard } from "../attempts.js";
import { PROVIDER } from "../../providers/order-crm-b/provider.js";
import type { CrmBPaymentBody, CrmBPaymentReply } from "./order-crm-b-schemas.js";

/** Creates the CRM order from the line items and charges its total by card; the total and currency must be the checkout's. */
export function payCrmBOrder(ctx: Ctx, body: CrmBPaymentBody): Promise<CrmBPaymentReply> {
  const currency = (body.currency ?? "USD").toUpperCase();
  return payOrderByCard(
    ctx,
    PROVIDER,
    body,
    (adapter, card, call) =>
      adapter.processPayment(
        {
          orderId: body.orderId,
          campaignId: body.campaignId,
          customer: body.customer,
          billingAddress: body.billingAddress,
          shippingAddress: body.shippingAddress ?? null,
          lineItems: body.lineItems,
          currency,
          card,
        },
        call,
      ),
    (charge, { transactionId, paymentMethodToken }, demo) => ({ success: true, transactionId, orderId: body.orderId, crmBOrderId: charge.providerOrderId, paymentMethodToken, demo }),
    { amountCents: lineItemsTotal(body.lineItems), currency, fields: { amount: "lineItems", currency: "currency" } },
  );
}
