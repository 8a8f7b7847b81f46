import { Type, type Static } from "typebox";
import { Metadata } from "../lib/metadata.js";
import { CardFields } from "../providers/schemas.js";
import { PAYMENT_PROVIDERS } from "../providers/types.js";

// The wire contract of SPEC.md "Upsell" and the resources it uses. Member names are exact.

// JSON's 1e400 parses to Infinity, which passes a bare integer check: every number has a finite maximum.
const MAX_CENTS = 100_000_000_00;
const text = (maxLength = 200) => Type.String({ minLength: 1, maxLength });
/** CONTRACT §36: absolute http(s), no userinfo, no whitespace or backslash (the rule of src/lib/redirect-url.ts). */
export const httpUrl = () => Type.String({ format: "uri", pattern: "^[hH][tT][tT][pP][sS]?://[^\\s\\\\/?#@]+([/?#][^\\s\\\\]*)?$", maxLength: 2048 });

/** CONTRACT §20: at most 5 offers per session, downsells not counted. */
export const MAX_OFFERS = 5;

/** SPEC "Targeting rules". */
export const TargetingRules = Type.Object({
  minCartValue: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS })),
  productIds: Type.Optional(Type.Array(text(), { maxItems: 500 })),
  excludeProductIds: Type.Optional(Type.Array(text(), { maxItems: 500 })),
});

const offerMembers = {
  id: text(),
  name: text(500),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  /** A charge of nothing is not a charge. */
  price: Type.Integer({ minimum: 1, maximum: MAX_CENTS }),
  originalPrice: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS })),
  image: Type.Optional(Type.String({ maxLength: 2048 })),
  showIf: Type.Optional(TargetingRules),
  /** CONTRACT §9: the offer's page lives elsewhere. */
  externalPageUrl: Type.Optional(httpUrl()),
};

/** A downsell is an UpsellOffer shown only when its offer is declined; it has no downsell of its own. */
export const DownsellOffer = Type.Object(offerMembers);

/** SPEC "Upsell offer" plus CONTRACT §9's `externalPageUrl` and `downsell`. */
export const UpsellOffer = Type.Object({ ...offerMembers, downsell: Type.Optional(DownsellOffer) });
export type UpsellOffer = Static<typeof UpsellOffer>;

export const CreateSessionBody = Type.Object({
  orderId: text(),
  originalOrderId: text(),
  customerEmail: Type.String({ minLength: 3, maxLength: 320 }),
  customerId: Type.Optional(text()),
  paymentMethodToken: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
  provider: Type.Enum([...PAYMENT_PROVIDERS]),
  currency: Type.Optional(Type.String({ pattern: "^[A-Za-z]{3}$" })),
  offers: Type.Array(UpsellOffer, { minItems: 1, maxItems: MAX_OFFERS }),
  metadata: Type.Optional(Metadata),
  cartTotal: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS })),
  purchasedProductIds: Type.Optional(Type.Array(text(), { maxItems: 500 })),
  themeId: Type.Optional(text()),
});
export type CreateSessionBody = Static<typeof CreateSessionBody>;

export const CreateSessionResponse = Type.Union([
  Type.Object({
    success: Type.Boolean(),
    sessionId: Type.String(),
    upsellUrl: Type.String(),
    expiresAt: Type.Number(),
    totalOffers: Type.Integer(),
  }),
  Type.Object({ success: Type.Boolean(), skipUpsell: Type.Boolean(), message: Type.String() }),
]);
export type CreateSessionResponse = Static<typeof CreateSessionResponse>;

export const AnswerOfferBody = Type.Object({ sessionId: text(), offerId: text() });
export type AnswerOfferBody = Static<typeof AnswerOfferBody>;

/** Issue 18: the offer paid with another card after its one-click charge was refused (not in SPEC). */
export const PayOfferByCardBody = Type.Object({ sessionId: text(), offerId: text(), ...CardFields });
export type PayOfferByCardBody = Static<typeof PayOfferByCardBody>;

export const AcceptOfferResponse = Type.Object({
  success: Type.Boolean(),
  transactionId: Type.String(),
  offerAccepted: Type.String(),
  amountCharged: Type.Integer(),
  hasMoreOffers: Type.Boolean(),
  totalUpsellAmount: Type.Integer(),
});
export type AcceptOfferResponse = Static<typeof AcceptOfferResponse>;

export const DeclineOfferResponse = Type.Object({
  success: Type.Boolean(),
  hasMoreOffers: Type.Boolean(),
  /** The offer to show next (a downsell of the declined offer first); null when the flow is finished. */
  nextOfferId: Type.Union([Type.String(), Type.Null()]),
});
export type DeclineOfferResponse = Static<typeof DeclineOfferResponse>;

/** SPEC "Upsell session". */
export const UpsellSession = Type.Object({
  id: Type.String(),
  status: Type.Enum(["active", "completed", "expired"]),
  currentStep: Type.Integer(),
  totalOffers: Type.Integer(),
  acceptedOffers: Type.Array(Type.String()),
  declinedOffers: Type.Array(Type.String()),
  totalUpsellAmount: Type.Integer(),
  expiresAt: Type.Number(),
});
export type UpsellSession = Static<typeof UpsellSession>;

export const SessionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const GetSessionResponse = Type.Object({ success: Type.Boolean(), session: UpsellSession });
export type GetSessionResponse = Static<typeof GetSessionResponse>;

export const ActionParams = Type.Object({ action: Type.Enum(["accept", "decline"]), sessionId: Type.String({ minLength: 1, maxLength: 100 }) });
export type ActionParams = Static<typeof ActionParams>;

/** GET /api/upsell/session/<id>/offer: the hosted page's read (not in SPEC; docs/upsell.md). */
export const CurrentOffer = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  price: Type.Integer({ description: "cents, fixed at session creation" }),
  originalPrice: Type.Optional(Type.Integer()),
  image: Type.Optional(Type.String()),
  externalPageUrl: Type.Optional(Type.String()),
  isDownsell: Type.Boolean(),
});
export const CurrentOfferResponse = Type.Object({
  success: Type.Boolean(),
  status: Type.Enum(["active", "completed", "expired"]),
  /** The original (checkout) order's id: the page passes it on to the success page with the session id. */
  orderId: Type.String(),
  currency: Type.String(),
  expiresAt: Type.Number(),
  /** The checkout's successUrl, where the flow ends; null means /success. */
  successUrl: Type.Union([Type.String(), Type.Null()]),
  /** Whether this session's provider takes another card for an offer whose one-click charge was refused (POST /api/upsell/pay-with-card). */
  payWithCard: Type.Boolean(),
  /** The offer to show now; null when the session is finished or expired. */
  offer: Type.Union([CurrentOffer, Type.Null()]),
  /** Issue 36: the original order the buyer just paid (the page says it went through, with the amount; minor units of its currency). */
  originalOrder: Type.Optional(Type.Object({ amount: Type.Integer(), currency: Type.String() })),
});
export type CurrentOfferResponse = Static<typeof CurrentOfferResponse>;
