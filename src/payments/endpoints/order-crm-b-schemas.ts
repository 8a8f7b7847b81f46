import { Type, type Static } from "typebox";
import { Address, CardFields, Currency, Customer, OrderId, ProductLineItems } from "../../providers/schemas.js";

export const CrmBPaymentBody = Type.Object({
  orderId: OrderId,
  // SPEC lists it as required; omitted, the brand's order_crm_b `campaignId` setting is used (demo: "demo"),
  // so the hosted checkout page, which knows no campaign, can pay (docs/providers.md).
  campaignId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  customer: Customer,
  billingAddress: Address,
  lineItems: ProductLineItems,
  ...CardFields,
  shippingAddress: Type.Optional(Address),
  // Not in SPEC's list: without it a non-USD checkout could never be verified at completion (docs/providers.md).
  currency: Type.Optional(Currency),
});
export type CrmBPaymentBody = Static<typeof CrmBPaymentBody>;

/** Not shown in SPEC: decided in docs/providers.md. The token is the CRM order id. */
export const CrmBPaymentReply = Type.Object({
  success: Type.Boolean(),
  transactionId: Type.String(),
  orderId: Type.String(),
  crmBOrderId: Type.String(),
  paymentMethodToken: Type.String(),
  demo: Type.Boolean(),
});
export type CrmBPaymentReply = Static<typeof CrmBPaymentReply>;
