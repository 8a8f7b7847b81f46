import { Type, type Static } from "typebox";
import { Address, CardFields, CartLineItems, Currency, Customer, OrderId } from "../../providers/schemas.js";

export const CreateCartBody = Type.Object({
  orderId: OrderId,
  customer: Customer,
  shippingAddress: Address,
  lineItems: CartLineItems,
  // Not in SPEC's list: the cart's currency, default USD (docs/providers.md).
  currency: Type.Optional(Currency),
});
export type CreateCartBody = Static<typeof CreateCartBody>;

export const CreateCartReply = Type.Object({ success: Type.Boolean(), cartOrderId: Type.String(), demo: Type.Boolean() });
export type CreateCartReply = Static<typeof CreateCartReply>;

export const CartPaymentBody = Type.Object({ cartOrderId: Type.String({ minLength: 1, maxLength: 255 }), ...CardFields, orderId: OrderId });
export type CartPaymentBody = Static<typeof CartPaymentBody>;

export const CartPaymentReply = Type.Object({ success: Type.Boolean(), transactionId: Type.String(), cartOrderId: Type.String(), demo: Type.Boolean() });
export type CartPaymentReply = Static<typeof CartPaymentReply>;
