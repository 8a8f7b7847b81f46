import { Type, type Static } from "typebox";
import { Address, AmountCents, CardFields, Currency, Customer, OrderId } from "../../providers/schemas.js";

export const VaultAPaymentBody = Type.Object({
  orderId: OrderId,
  ...CardFields,
  amount: AmountCents,
  currency: Currency,
  customer: Type.Optional(Customer),
  billingAddress: Type.Optional(Address),
});
export type VaultAPaymentBody = Static<typeof VaultAPaymentBody>;

export const VaultPaymentReply = Type.Object({
  success: Type.Boolean(),
  transactionId: Type.String(),
  orderId: Type.String(),
  paymentMethodToken: Type.String(),
  demo: Type.Boolean(),
});

export const VaultUpsellBody = Type.Object({
  paymentMethodToken: Type.String({ minLength: 1, maxLength: 512 }),
  amount: AmountCents,
  orderId: OrderId,
  originalOrderId: OrderId,
});
export type VaultUpsellBody = Static<typeof VaultUpsellBody>;

/** Not shown in SPEC: decided in docs/providers.md. The currency is the original payment's. */
export const VaultUpsellReply = Type.Object({
  success: Type.Boolean(),
  transactionId: Type.String(),
  orderId: Type.String(),
  originalOrderId: Type.String(),
  amount: Type.Integer(),
  currency: Type.String(),
  demo: Type.Boolean(),
});
export type VaultUpsellReply = Static<typeof VaultUpsellReply>;
