import { Type, type Static } from "typebox";

const id = () => Type.String({ minLength: 1, maxLength: 200 });

/** The success page's read: the order and a proof the buyer holds (one of the two). */
export const ConfirmationQuery = Type.Object({
  orderId: id(),
  /** The checkout's transaction id, as the checkout page appends it to the success URL. */
  transactionId: Type.Optional(id()),
  /** The upsell session id (128 random bits), as the upsell page appends it when the flow ends. */
  sessionId: Type.Optional(id()),
});
export type ConfirmationQuery = Static<typeof ConfirmationQuery>;

/**
 * Issue 36: the checkout page's read when the buyer comes back to a paid checkout: the checkout token
 * (a bearer credential signed for that order) is the proof. In a body, never in a URL.
 */
export const ConfirmationByTokenBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 16384 }) });
export type ConfirmationByTokenBody = Static<typeof ConfirmationByTokenBody>;

const Charge = Type.Object({
  kind: Type.Union([Type.Literal("order"), Type.Literal("upsell")]),
  /** What was bought: the line items' names (or the product name), or the upsell offer's name. */
  items: Type.Array(Type.Object({ name: Type.String(), quantity: Type.Integer(), amount: Type.Integer() })),
  /** Minor units of `currency`. */
  amount: Type.Integer(),
  currency: Type.String(),
});

export const ConfirmationReply = Type.Object({
  success: Type.Literal(true),
  orderId: Type.String(),
  brandName: Type.String(),
  /** Whether the brand sends receipts (docs/receipts.md): the page promises an email only then. */
  receiptEmail: Type.Boolean(),
  /**
   * Issue 36: where the receipt goes, masked ("j•••@example.com": the first letter and the domain), so
   * the buyer sees a typo; only with `receiptEmail` and an address on the order.
   */
  receiptTo: Type.Optional(Type.String()),
  /** The original order first, then each accepted upsell in the order they were charged. */
  charges: Type.Array(Charge),
  /** One total per currency (amounts in different currencies are never added). */
  totals: Type.Array(Type.Object({ amount: Type.Integer(), currency: Type.String() })),
});
export type ConfirmationReply = Static<typeof ConfirmationReply>;
