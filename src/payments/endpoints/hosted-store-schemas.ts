import { Type, type Static } from "typebox";
import { AmountCents, Currency, OrderId, VariantLineItems } from "../../providers/schemas.js";

const StoreOrderId = Type.String({ minLength: 1, maxLength: 255 });

export const CreateHostedCheckoutBody = Type.Object({
  orderId: OrderId,
  lineItems: VariantLineItems,
  customer: Type.Object({
    email: Type.String({ minLength: 1, maxLength: 320 }),
    firstName: Type.Optional(Type.String({ maxLength: 255 })),
    lastName: Type.Optional(Type.String({ maxLength: 255 })),
    phone: Type.Optional(Type.String({ maxLength: 64 })),
  }),
  // Not in SPEC's list: the store prices variants itself; the demo store takes the checkout's amount,
  // else this, else the line items' prices, else its catalogue price per unit (docs/providers.md).
  amount: Type.Optional(AmountCents),
  currency: Type.Optional(Currency),
});
export type CreateHostedCheckoutBody = Static<typeof CreateHostedCheckoutBody>;

/** SPEC shows `checkoutUrl`; the other members are decided in docs/providers.md. */
export const CreateHostedCheckoutReply = Type.Object({ success: Type.Boolean(), checkoutUrl: Type.String(), storeOrderId: Type.String(), demo: Type.Boolean() });
export type CreateHostedCheckoutReply = Static<typeof CreateHostedCheckoutReply>;

export const StoreOrderBody = Type.Object({ storeOrderId: StoreOrderId, orderId: OrderId });
export type StoreOrderBody = Static<typeof StoreOrderBody>;

/** Not shown in SPEC: decided in docs/providers.md. The token is the store order id. */
export const CompleteHostedCheckoutReply = Type.Object({
  success: Type.Boolean(),
  storeOrderId: Type.String(),
  orderId: Type.String(),
  transactionId: Type.String(),
  paymentMethodToken: Type.String(),
  status: Type.Literal("paid"),
  demo: Type.Boolean(),
});
export type CompleteHostedCheckoutReply = Static<typeof CompleteHostedCheckoutReply>;

/** Not shown in SPEC: decided in docs/providers.md. */
export const ConfirmStoreOrderReply = Type.Object({
  success: Type.Boolean(),
  storeOrderId: Type.String(),
  orderId: Type.String(),
  status: Type.Literal("confirmed"),
  demo: Type.Boolean(),
});
export type ConfirmStoreOrderReply = Static<typeof ConfirmStoreOrderReply>;
