import { Type, type Static } from "typebox";
import { validationError } from "../lib/errors.js";
import type { CardInput, ExpectedCharge } from "./types.js";

export type { ExpectedCharge } from "./types.js";

// Wire pieces shared by the provider endpoints (SPEC "Resources and their fields", "Payment provider
// endpoints"). Lengths are generous bounds on work, not business rules.

const text = (maxLength = 255) => Type.String({ minLength: 1, maxLength });

export const OrderId = text();
/** Integer cents; a payment of nothing is not a payment. */
export const MAX_AMOUNT_CENTS = 100_000_000_00;
export const AmountCents = Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_CENTS });
/** ISO 4217; upper-cased by the verbs. */
export const Currency = Type.String({ pattern: "^[A-Za-z]{3}$" });

/** A path of this service's checkout page (`/checkout/<token>`, query allowed): where the demo bank's and store's pages return to. */
export const CHECKOUT_RETURN_PATH = /^\/checkout\/[^\s\\?#/][^\s\\#]*$/;

export const Address = Type.Object({
  line1: text(),
  line2: Type.Optional(Type.String({ maxLength: 255 })),
  city: text(),
  // Issue 36: empty where the country has none or makes it optional (a UK county, Germany's state);
  // the completion checks them by the country's rules (src/lib/address-rules.ts).
  state: Type.String({ maxLength: 255 }),
  postalCode: Type.String({ maxLength: 32 }),
  country: text(64),
});

/** Direct gateways and CRMs: `email`, `firstName`, `lastName` required, `phone` optional. */
export const Customer = Type.Object({
  email: text(320),
  firstName: text(),
  lastName: text(),
  phone: Type.Optional(Type.String({ maxLength: 64 })),
});

export const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 1000 }));

const quantity = Type.Integer({ minimum: 1, maximum: 10_000 });
const price = Type.Integer({ minimum: 0, maximum: 100_000_000_00 });
const itemBounds = { minItems: 1, maxItems: 500 };

/** order_crm_a, order_crm_b, vault_gateway_b. */
export const ProductLineItems = Type.Array(Type.Object({ productId: text(), quantity, price }), itemBounds);
/** cart_gateway. */
export const CartLineItems = Type.Array(Type.Object({ itemId: text(), quantity, price }), itemBounds);
/** hosted_store. */
// `price` is not in SPEC's body: the store prices variants itself; the demo store may be told a price (docs/providers.md).
export const VariantLineItems = Type.Array(Type.Object({ variantId: text(), quantity, price: Type.Optional(price) }), itemBounds);

/** What line items with a price come to (Σ price × quantity): the amount order_crm_b and cart_gateway charge. */
export const lineItemsTotal = (items: readonly { price: number; quantity: number }[]) => items.reduce((sum, item) => sum + item.price * item.quantity, 0);

/** Card fields are strings (SPEC); their content is checked by assertCardAcceptable, with field names. */
export const CardFields = {
  cardNumber: Type.String({ maxLength: 32 }),
  cardExpMonth: Type.String({ maxLength: 4 }),
  cardExpYear: Type.String({ maxLength: 4 }),
  cardCvv: Type.String({ maxLength: 8 }),
};
export const OptionalCardFields = {
  cardNumber: Type.Optional(CardFields.cardNumber),
  cardExpMonth: Type.Optional(CardFields.cardExpMonth),
  cardExpYear: Type.Optional(CardFields.cardExpYear),
  cardCvv: Type.Optional(CardFields.cardCvv),
};

const CARD_FIELD_NAMES = ["cardNumber", "cardExpMonth", "cardExpYear", "cardCvv"] as const;

export function cardOf(body: CardInput): CardInput {
  return { cardNumber: body.cardNumber, cardExpMonth: body.cardExpMonth, cardExpYear: body.cardExpYear, cardCvv: body.cardCvv };
}

/** Where card fields are optional (intent gateway, demo only): none, or all four. */
export function optionalCardOf(body: Partial<CardInput>): CardInput | undefined {
  if (CARD_FIELD_NAMES.every((name) => body[name] === undefined)) return undefined;
  const missing = CARD_FIELD_NAMES.find((name) => body[name] === undefined);
  if (missing) throw validationError(`Invalid request: ${missing} is required`, missing);
  return cardOf(body as CardInput);
}

/**
 * Refuses, before anything is charged, a charge whose amount or currency differs from the order's
 * initialized checkout (issue 31): completion could never verify it (CONTRACT §19) and, paid, it
 * would block the right payment (§37), leaving the buyer charged without an order. `fields` name the
 * request members that carry them (400 `details`). No checkout (`expected` undefined): nothing to compare.
 */
export function assertExpectedCharge(expected: ExpectedCharge | undefined, charge: ExpectedCharge, fields: { amount: string; currency: string } = { amount: "amount", currency: "currency" }): void {
  if (!expected) return;
  if (charge.amountCents !== expected.amountCents) throw validationError(`Invalid request: ${fields.amount} differs from the checkout's amount`, fields.amount);
  if (charge.currency.toUpperCase() !== expected.currency.toUpperCase()) throw validationError(`Invalid request: ${fields.currency} differs from the checkout's currency`, fields.currency);
}
