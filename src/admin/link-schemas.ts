import { Type, type Static } from "typebox";

// POST /api/admin/tools/generate-link (SPEC "Administration: tools"): body and answer.

export const GenerateLinkBody = Type.Object({
  salespersonId: Type.String({ minLength: 1, maxLength: 200 }),
  salespersonName: Type.Optional(Type.String({ maxLength: 200, description: "defaults to the salesperson's name" })),
  commissionRate: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "fraction; defaults to the salesperson's rate, else 0" })),
  orderInfo: Type.Object({
    productName: Type.String({ minLength: 1, maxLength: 500 }),
    total: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "cents" }),
    currency: Type.String({ pattern: "^[A-Za-z]{3}$" }),
    orderId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "generated when omitted" })),
  }),
  mode: Type.Optional(
    Type.Union([Type.Literal("test"), Type.Literal("live")], {
      description:
        "the checkout's mode (issue 33); default: the brand's, live when it has live credentials for some payment provider, else test. The back office sends the mode its Live/Test switch shows",
    }),
  ),
});
export type GenerateLinkBody = Static<typeof GenerateLinkBody>;

export const GenerateLinkReply = Type.Object({
  success: Type.Boolean(),
  checkoutUrl: Type.String(),
  token: Type.String(),
  code: Type.String(),
  orderId: Type.String(),
  expiresAt: Type.Number({ description: "Unix ms" }),
  livemode: Type.Boolean({ description: "the mode of the link's checkout (the token's `livemode` claim)" }),
});
export type GenerateLinkReply = Static<typeof GenerateLinkReply>;
