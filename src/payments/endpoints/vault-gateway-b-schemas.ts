import { Type, type Static } from "typebox";
import { Address, AmountCents, CardFields, Currency, Customer, OrderId, ProductLineItems } from "../../providers/schemas.js";

export const VaultBPaymentBody = Type.Object({
  orderId: OrderId,
  ...CardFields,
  amount: AmountCents,
  currency: Type.Optional(Currency),
  customer: Type.Optional(Customer),
  billingAddress: Type.Optional(Address),
  shippingAddress: Type.Optional(Address),
  lineItems: Type.Optional(ProductLineItems),
});
export type VaultBPaymentBody = Static<typeof VaultBPaymentBody>;

export { VaultPaymentReply } from "./vault-gateway-a-schemas.js";
