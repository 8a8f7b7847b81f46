import { Type, type Static } from "typebox";
import { CheckoutClaims } from "../checkout/schemas.js";

// Issue 15: `/api/v1`, the merchant servers' API (Bearer API key). Bodies reuse SPEC.md's shapes.

// What a checkout token carries (SPEC's claims) without brandId, iat and exp, plus the link's lifetime.
// `livemode` too: the checkout's mode is the key's (issue 33), never the body's.
const { brandId: _brandId, iat: _iat, exp: _exp, livemode: _livemode, ...merchantClaims } = CheckoutClaims.properties;

export const CreateCheckoutBody = Type.Object(
  {
    ...merchantClaims,
    expiresInSeconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400, default: 3600, description: "how long the checkout link stays valid" })),
  },
  {
    // Unknown members (a `brandId`, `exp`…) are dropped: the brand is the key's, the lifetime expiresInSeconds.
    additionalProperties: false,
    examples: [
      {
        orderId: "order-1001",
        amount: 4999,
        currency: "USD",
        productName: "Premium plan",
        customer: { email: "buyer@example.com", firstName: "Ada", lastName: "Lovelace" },
        successUrl: "https://shop.example.com/thanks",
        cancelUrl: "https://shop.example.com/cart",
        webhookUrl: "https://shop.example.com/webhooks/checkout",
        expiresInSeconds: 3600,
      },
    ],
  },
);
export type CreateCheckoutBody = Static<typeof CreateCheckoutBody>;

export const CreatedCheckout = Type.Object(
  {
    id: Type.String(),
    orderId: Type.String(),
    url: Type.String({ description: "the hosted checkout page: redirect the buyer here" }),
    shortUrl: Type.String({ description: "the same checkout as a short link /c/<code>" }),
    token: Type.String({ description: "the signed checkout token behind the page" }),
    expiresAt: Type.Number({ description: "Unix ms" }),
    livemode: Type.Boolean({ description: "the key's mode: false for a test key (demo payments only), true for a live key" }),
  },
  {
    examples: [
      {
        id: "chk_3tq2Hj9s8mVbM1kqZq1xgA",
        orderId: "order-1001",
        url: "https://pay.example.com/checkout/eyJhbGciOiJIUzI1NiJ9…",
        shortUrl: "https://pay.example.com/c/Zx8k2mQp7LrT0aBc",
        token: "eyJhbGciOiJIUzI1NiJ9…",
        expiresAt: 1767225600000,
        livemode: false,
      },
    ],
  },
);
export type CreatedCheckout = Static<typeof CreatedCheckout>;

export const CheckoutIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export type CheckoutIdParams = Static<typeof CheckoutIdParams>;

export const MerchantCheckoutStatus = Type.Union([Type.Literal("open"), Type.Literal("initialized"), Type.Literal("completed"), Type.Literal("expired")], {
  description: "open: not opened yet; initialized: the buyer chose a provider; completed: paid; expired: the link expired unpaid",
});

export const MerchantCheckoutView = Type.Object({
  id: Type.String(),
  orderId: Type.String(),
  status: MerchantCheckoutStatus,
  amount: Type.Integer({ description: "minor units" }),
  currency: Type.String(),
  provider: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Number({ description: "Unix ms" }),
  completedAt: Type.Union([Type.Number({ description: "Unix ms" }), Type.Null()]),
  expiresAt: Type.Number({ description: "Unix ms" }),
  livemode: Type.Boolean({ description: "the mode of the key that made it (CONTRACT §39)" }),
});
export type MerchantCheckoutView = Static<typeof MerchantCheckoutView>;
