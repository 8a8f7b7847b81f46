import { Type, type Static } from "typebox";
import { Address, AmountCents, CardFields, Currency, Customer, OrderId, ProductLineItems } from "../../providers/schemas.js";

const CrmAOrderId = Type.String({ minLength: 1, maxLength: 255 });

export const CreateCrmAOrderBody = Type.Object({
  orderId: OrderId,
  customer: Customer,
  shippingAddress: Address,
  billingAddress: Address,
  lineItems: ProductLineItems,
  total: AmountCents,
  currency: Currency,
  campaignId: Type.Optional(Type.String({ maxLength: 255 })),
});
export type CreateCrmAOrderBody = Static<typeof CreateCrmAOrderBody>;

export const CreateCrmAOrderReply = Type.Object({ success: Type.Boolean(), crmAOrderId: Type.String(), demo: Type.Boolean() });
export type CreateCrmAOrderReply = Static<typeof CreateCrmAOrderReply>;

export const CrmAPaymentBody = Type.Object({ crmAOrderId: CrmAOrderId, ...CardFields, orderId: OrderId });
export type CrmAPaymentBody = Static<typeof CrmAPaymentBody>;

export const CrmAPaymentReply = Type.Object({ success: Type.Boolean(), transactionId: Type.String(), crmAOrderId: Type.String() });
export type CrmAPaymentReply = Static<typeof CrmAPaymentReply>;

/** Not shown in SPEC: decided in docs/providers.md. */
export const ConfirmCrmAOrderBody = Type.Object({ crmAOrderId: CrmAOrderId, orderId: OrderId });
export type ConfirmCrmAOrderBody = Static<typeof ConfirmCrmAOrderBody>;

export const ConfirmCrmAOrderReply = Type.Object({
  success: Type.Boolean(),
  crmAOrderId: Type.String(),
  orderId: Type.String(),
  status: Type.Literal("confirmed"),
  demo: Type.Boolean(),
});
export type ConfirmCrmAOrderReply = Static<typeof ConfirmCrmAOrderReply>;
