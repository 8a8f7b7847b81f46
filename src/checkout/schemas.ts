import { Type, type Static } from "typebox";
import { Metadata } from "../lib/metadata.js";
import { CRM_PROVIDERS, PAYMENT_PROVIDERS } from "../providers/types.js";
import { Address as ProviderAddress, CardFields, CHECKOUT_RETURN_PATH, Customer as ProviderCustomer } from "../providers/schemas.js";

// The wire contract of SPEC.md "Checkout" and the resources it uses. Member names are exact.

export const PaymentProviderType = Type.Enum([...PAYMENT_PROVIDERS]);

// JSON's 1e400 parses to Infinity, which passes a bare integer check: every number has a finite maximum.
const MAX_CENTS = Number.MAX_SAFE_INTEGER;
const cents = (minimum: number) => Type.Integer({ minimum, maximum: MAX_CENTS });
const quantity = () => Type.Integer({ minimum: 1, maximum: 1_000_000 });
const rate = () => Type.Number({ minimum: 0, maximum: 1_000_000_000 });
const unixTime = () => Type.Number({ maximum: MAX_CENTS });

/** SPEC "Address (API bodies)". */
export const Address = Type.Object({
  line1: Type.String({ minLength: 1 }),
  line2: Type.Optional(Type.String()),
  city: Type.String(),
  state: Type.String(),
  postalCode: Type.String(),
  country: Type.String({ minLength: 1 }),
});
export type Address = Static<typeof Address>;

/** SPEC "Token claims" `shippingAddress`: address1/address2 instead of line1/line2. */
const ClaimAddress = Type.Object({
  address1: Type.String(),
  address2: Type.Optional(Type.String()),
  city: Type.String(),
  state: Type.String(),
  postalCode: Type.String(),
  country: Type.String(),
});

const ClaimCustomer = Type.Object({
  email: Type.Optional(Type.String()),
  firstName: Type.Optional(Type.String()),
  lastName: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
});

/** Line items as the token generator writes them (SPEC "Line items", token generate). */
const ClaimLineItem = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  quantity: quantity(),
  unitPrice: cents(0),
  description: Type.Optional(Type.String()),
  sku: Type.Optional(Type.String()),
});

const ClaimSalesAttribution = Type.Object({
  salespersonId: Type.String({ minLength: 1 }),
  salespersonName: Type.Optional(Type.String()),
  commissionRate: Type.Optional(rate()),
});

/**
 * SPEC "Checkout token claims". `lineItems` and `salesAttribution` are the extra claims the token
 * generator (and the administration link generator) write. Other registered JWT claims (iss, jti, …)
 * are tolerated and ignored, since merchants' JWT libraries add them.
 */
export const CheckoutClaims = Type.Object({
  orderId: Type.String({ minLength: 1, maxLength: 200 }),
  amount: cents(1),
  currency: Type.String({ pattern: "^[A-Za-z]{3}$" }),
  productName: Type.String(),
  productDescription: Type.Optional(Type.String()),
  productImage: Type.Optional(Type.String()),
  customer: Type.Optional(ClaimCustomer),
  shippingAddress: Type.Optional(ClaimAddress),
  /**
   * Issue 36 (not in SPEC, optional): false when the order ships nothing: the checkout page asks no
   * shipping address (unless the provider's API needs one: docs/merchant-guide.md "Shipping address").
   * Default true, as before.
   */
  shippingAddressRequired: Type.Optional(Type.Boolean()),
  provider: Type.Optional(PaymentProviderType),
  brandId: Type.Optional(Type.String({ minLength: 1 })),
  successUrl: Type.Optional(Type.String()),
  cancelUrl: Type.Optional(Type.String()),
  webhookUrl: Type.Optional(Type.String({ pattern: "^https?://" })),
  metadata: Type.Optional(Metadata),
  lineItems: Type.Optional(Type.Array(ClaimLineItem)),
  salesAttribution: Type.Optional(ClaimSalesAttribution),
  /** Set by the public token generator only (CONTRACT §35): such a checkout is paid through demo-mode providers alone. */
  demoOnly: Type.Optional(Type.Boolean()),
  /**
   * Issue 33 (CONTRACT §39): the checkout's mode. A token signed with a brand signing key gets the
   * key's mode (a claim that disagrees makes it invalid); an operator token may state it; without it
   * the legacy rule decides at initialize (docs/decisions.md "Test and live").
   */
  livemode: Type.Optional(Type.Boolean()),
  /**
   * Issue 33: a funnel of the brand (live or paused) the buyer enters after paying, whatever the
   * brand's live funnels' triggers say: the service sends the buyer to its upsell page itself.
   */
  funnelId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  exp: unixTime(),
  iat: unixTime(),
});
export type CheckoutClaims = Static<typeof CheckoutClaims>;

// ---- POST /api/token/generate

export const GenerateTokenBody = Type.Object({
  orderInfo: Type.Optional(
    Type.Object({
      orderId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      total: Type.Optional(cents(1)),
      currency: Type.Optional(Type.String({ pattern: "^[A-Za-z]{3}$" })),
      productName: Type.Optional(Type.String()),
      productDescription: Type.Optional(Type.String()),
    }),
  ),
  lineItems: Type.Optional(
    Type.Array(
      Type.Object({
        id: Type.String(),
        name: Type.String(),
        quantity: quantity(),
        unitPrice: cents(0),
        description: Type.Optional(Type.String()),
      }),
      { maxItems: 100 },
    ),
  ),
  customer: Type.Optional(ClaimCustomer),
  salesAttribution: Type.Optional(ClaimSalesAttribution),
});
export type GenerateTokenBody = Static<typeof GenerateTokenBody>;

export const GenerateTokenResponse = Type.Object({
  success: Type.Boolean(),
  code: Type.String(),
  checkoutUrl: Type.String(),
  token: Type.String(),
  payload: Type.Object({ orderId: Type.String(), total: Type.Integer(), currency: Type.String() }),
});
export type GenerateTokenResponse = Static<typeof GenerateTokenResponse>;

// ---- POST /api/checkout/initialize

export const InitializeBody = Type.Object({
  token: Type.String({ minLength: 1 }),
  provider: PaymentProviderType,
  customer: Type.Optional(
    Type.Object({ email: Type.String(), firstName: Type.String(), lastName: Type.String(), phone: Type.Optional(Type.String()) }),
  ),
  shippingAddress: Type.Optional(Address),
  billingAddress: Type.Optional(Address),
});
export type InitializeBody = Static<typeof InitializeBody>;

export const InitializeResponse = Type.Object({
  success: Type.Boolean(),
  provider: PaymentProviderType,
  providerOrderId: Type.String(),
  clientSecret: Type.Optional(Type.String()),
  checkoutUrl: Type.Optional(Type.String()),
  // Not in SPEC (docs/checkout.md): the provider runs in demo mode (test cards, no money), as the provider endpoints say.
  demo: Type.Optional(Type.Boolean()),
});
export type InitializeResponse = Static<typeof InitializeResponse>;

// ---- POST /api/checkout/complete

export const CompleteLineItem = Type.Object({
  id: Type.String(),
  name: Type.Optional(Type.String()),
  quantity: quantity(),
  unitPrice: cents(0),
  sku: Type.Optional(Type.String()),
});
export type CompleteLineItem = Static<typeof CompleteLineItem>;

export const SalesAttribution = Type.Object({
  salespersonId: Type.String({ minLength: 1 }),
  salespersonName: Type.Optional(Type.String()),
  salespersonEmail: Type.Optional(Type.String()),
  teamId: Type.Optional(Type.String()),
  teamName: Type.Optional(Type.String()),
  commissionRate: Type.Optional(rate()),
  commissionType: Type.Optional(Type.Enum(["percentage", "fixed"])),
  source: Type.Optional(Type.String()),
  campaignCode: Type.Optional(Type.String()),
  generatedAt: Type.Optional(unixTime()),
});
export type SalesAttribution = Static<typeof SalesAttribution>;

export const CompleteBody = Type.Object({
  orderId: Type.String({ minLength: 1 }),
  transactionId: Type.String({ minLength: 1 }),
  provider: PaymentProviderType,
  customerEmail: Type.String(),
  customerName: Type.String(),
  amount: cents(0),
  currency: Type.String({ pattern: "^[A-Za-z]{3}$" }),
  providerOrderId: Type.Optional(Type.String()),
  customer: Type.Optional(
    Type.Object({ firstName: Type.String(), lastName: Type.String(), phone: Type.Optional(Type.String()), ipAddress: Type.Optional(Type.String()) }),
  ),
  billingAddress: Type.Optional(Address),
  shippingAddress: Type.Optional(Address),
  lineItems: Type.Optional(Type.Array(CompleteLineItem, { maxItems: 500 })),
  recordInCrm: Type.Optional(Type.Boolean()),
  crmProvider: Type.Optional(Type.Enum([...CRM_PROVIDERS, "none"])),
  crmCampaignId: Type.Optional(Type.String()),
  affId: Type.Optional(Type.String()),
  subId: Type.Optional(Type.String()),
  salesAttribution: Type.Optional(SalesAttribution),
});
export type CompleteBody = Static<typeof CompleteBody>;

export const CompleteResponse = Type.Object({
  success: Type.Boolean(),
  orderId: Type.String(),
  transactionId: Type.String(),
  paymentMethodToken: Type.String(),
  provider: PaymentProviderType,
  crmOrderId: Type.Optional(Type.String()),
  crmProvider: Type.Optional(Type.String()),
  commissionId: Type.Optional(Type.String()),
  /** Issue 19: the upsell page of the funnel this order entered; the hosted page goes there instead of the success page. */
  upsellUrl: Type.Optional(Type.String()),
});
export type CompleteResponse = Static<typeof CompleteResponse>;

// ---- POST /api/checkout/get-payment-token

export const GetPaymentTokenBody = Type.Object({
  provider: PaymentProviderType,
  transactionId: Type.String({ minLength: 1 }),
  providerOrderId: Type.Optional(Type.String()),
});
export type GetPaymentTokenBody = Static<typeof GetPaymentTokenBody>;

export const GetPaymentTokenResponse = Type.Object({
  success: Type.Boolean(),
  paymentMethodToken: Type.String(),
  provider: PaymentProviderType,
});
export type GetPaymentTokenResponse = Static<typeof GetPaymentTokenResponse>;

export const ShortLinkParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 64 }) });

// ---- POST /api/checkout/pay (not in SPEC: issue 34, docs/orchestration.md "Cascades")

export const PayBody = Type.Object({
  orderId: Type.String({ minLength: 1, maxLength: 200 }),
  ...CardFields,
  customer: ProviderCustomer,
  /** Optional when the checkout asks for no address (`shippingAddressRequired: false`): providers that need one are then not tried. */
  billingAddress: Type.Optional(ProviderAddress),
  shippingAddress: Type.Optional(ProviderAddress),
  /** intent_gateway's 3-D Secure step sends the buyer back to this checkout page path. */
  returnUrl: Type.Optional(Type.String({ maxLength: 4096, pattern: CHECKOUT_RETURN_PATH.source })),
});
export type PayBody = Static<typeof PayBody>;

export const PayResponse = Type.Object({
  status: Type.Enum(["succeeded", "requires_action"]),
  /** The provider that charged (or asks for 3-D Secure): complete names it. */
  provider: PaymentProviderType,
  transactionId: Type.String(),
  providerOrderId: Type.String(),
  orderId: Type.String(),
  demo: Type.Boolean(),
  nextAction: Type.Optional(Type.Object({ url: Type.String() })),
  /** Every provider tried, in order (a cascade after a soft decline). */
  attempts: Type.Array(
    Type.Object({
      provider: PaymentProviderType,
      result: Type.Enum(["approved", "declined", "failed", "requires_action"]),
      declineCode: Type.Union([Type.String(), Type.Null()]),
    }),
  ),
});
export type PayResponse = Static<typeof PayResponse>;

// ---- POST /api/checkout/providers (not in SPEC: issue 34)

export const CheckoutProvidersBody = Type.Object({ token: Type.String({ minLength: 1 }) });
export type CheckoutProvidersBody = Static<typeof CheckoutProvidersBody>;

export const CheckoutProvidersResponse = Type.Object({
  /** The providers the token allows: card-taking ones first (the brand's order), then the others (hosted_store). */
  providers: Type.Array(PaymentProviderType),
});
export type CheckoutProvidersResponse = Static<typeof CheckoutProvidersResponse>;
