import { Type, type Static } from "typebox";
import { Address, AmountCents, CHECKOUT_RETURN_PATH, Currency, Metadata, OptionalCardFields, OrderId } from "../../providers/schemas.js";

export const CreateIntentBody = Type.Object({
  amount: AmountCents,
  currency: Currency,
  orderId: OrderId,
  customer: Type.Optional(
    Type.Object({
      email: Type.String({ minLength: 1, maxLength: 320 }),
      name: Type.Optional(Type.String({ maxLength: 255 })),
      firstName: Type.Optional(Type.String({ maxLength: 255 })),
      lastName: Type.Optional(Type.String({ maxLength: 255 })),
    }),
  ),
  metadata: Type.Optional(Metadata),
  shippingAddress: Type.Optional(Address),
  // Demo mode only (CONTRACT §33): the page's card form stands in for the gateway's client SDK.
  ...OptionalCardFields,
});
export type CreateIntentBody = Static<typeof CreateIntentBody>;

export const CreateIntentReply = Type.Object({
  success: Type.Boolean(),
  paymentIntentId: Type.String(),
  clientSecret: Type.String(),
});
export type CreateIntentReply = Static<typeof CreateIntentReply>;

export const ConfirmIntentBody = Type.Object({
  paymentIntentId: Type.String({ minLength: 1, maxLength: 255 }),
  ...OptionalCardFields,
  // Not in SPEC (docs/providers.md "3-D Secure"): the demo bank's 3-D Secure page returns there.
  returnUrl: Type.Optional(Type.String({ maxLength: 4096, pattern: CHECKOUT_RETURN_PATH.source })),
});
export type ConfirmIntentBody = Static<typeof ConfirmIntentBody>;

export const ConfirmIntentReply = Type.Object({
  success: Type.Boolean(),
  // `failed` is answered 402 PAYMENT_FAILED, never a 200.
  status: Type.Union([Type.Literal("succeeded"), Type.Literal("processing"), Type.Literal("requires_action")]),
  paymentIntentId: Type.String(),
  orderId: Type.String(),
  paymentMethodId: Type.String(),
  // Not in SPEC (docs/providers.md "3-D Secure"): with `requires_action`, where the buyer authenticates.
  nextAction: Type.Optional(Type.Object({ type: Type.Literal("redirect_to_url"), url: Type.String() })),
});
export type ConfirmIntentReply = Static<typeof ConfirmIntentReply>;
