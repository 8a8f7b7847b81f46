import { Type, type Static } from "typebox";
import { LivemodeMember, LivemodeParam } from "../http/mode.js";

// Lasting payment links (not in SPEC; issue 18 item 14, docs/admin.md "Payment links").

const MAX_MINOR_UNITS = Number.MAX_SAFE_INTEGER;
const url = (description: string) => Type.String({ minLength: 1, maxLength: 2048, description });

export const CreatePaymentLinkBody = Type.Object({
  productName: Type.String({ minLength: 1, maxLength: 500 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  imageUrl: Type.Optional(url("absolute http(s) URL of the product image")),
  quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1, description: "units per purchase; default 1" })),
  price: Type.Integer({ minimum: 1, maximum: MAX_MINOR_UNITS, description: "unit price in minor units of currency; the total is price × quantity" }),
  currency: Type.String({ pattern: "^[A-Za-z]{3}$" }),
  successUrl: Type.Optional(url("where the buyer goes after paying (CONTRACT §36: absolute http(s), no userinfo)")),
  cancelUrl: Type.Optional(url("where 'Back to the shop' leads (CONTRACT §36)")),
  salespersonId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "optional: credit sales through the link to this salesperson" })),
  commissionRate: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "fraction; defaults to the salesperson's rate, else 0" })),
  expiresAt: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_MINOR_UNITS, description: "Unix ms; default and latest: one year from now" })),
  mode: Type.Optional(
    Type.Union([Type.Literal("test"), Type.Literal("live")], {
      description: "the mode of every checkout the link makes; default: live when the brand has live credentials for some payment provider, else test",
    }),
  ),
});
export type CreatePaymentLinkBody = Static<typeof CreatePaymentLinkBody>;

export const PaymentLinkView = Type.Object({
  id: Type.String(),
  url: Type.String({ description: "the public link, {PUBLIC_BASE_URL}/l/<code>" }),
  brandId: Type.String(),
  productName: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  imageUrl: Type.Union([Type.String(), Type.Null()]),
  quantity: Type.Integer(),
  price: Type.Integer({ description: "unit price, minor units" }),
  total: Type.Integer({ description: "price × quantity, minor units" }),
  currency: Type.String(),
  successUrl: Type.Union([Type.String(), Type.Null()]),
  cancelUrl: Type.Union([Type.String(), Type.Null()]),
  salespersonId: Type.Union([Type.String(), Type.Null()]),
  salespersonName: Type.Union([Type.String(), Type.Null()]),
  commissionRate: Type.Union([Type.Number(), Type.Null()]),
  status: Type.Union([Type.Literal("active"), Type.Literal("disabled"), Type.Literal("expired")]),
  expiresAt: Type.Number({ description: "Unix ms" }),
  disabledAt: Type.Union([Type.Number(), Type.Null()]),
  createdAt: Type.Number({ description: "Unix ms" }),
  livemode: Type.Boolean({ description: "the mode of the link's checkouts (issue 33)" }),
});
export type PaymentLinkView = Static<typeof PaymentLinkView>;

export const PaymentLinkReply = Type.Object({ success: Type.Boolean(), link: PaymentLinkView });
export type PaymentLinkReply = Static<typeof PaymentLinkReply>;

export const PaymentLinksQuery = Type.Object({ livemode: LivemodeParam });
export type PaymentLinksQuery = Static<typeof PaymentLinksQuery>;

export const PaymentLinkListed = Type.Intersect([
  PaymentLinkView,
  Type.Object({ salesCount: Type.Integer({ minimum: 0, description: "completed checkouts (orders, upsells not counted) opened from this link" }) }),
]);
export const PaymentLinksReply = Type.Object({ livemode: LivemodeMember, links: Type.Array(PaymentLinkListed) });
export type PaymentLinksReply = Static<typeof PaymentLinksReply>;

export const PaymentLinkParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
export const OpenPaymentLinkParams = Type.Object({ code: Type.String({ minLength: 1, maxLength: 200 }) });
