import { Type, type Static } from "typebox";
import { ClawbackLine } from "../commissions/schemas.js";
import { LivemodeMember, LivemodeParam } from "../http/mode.js";

// CONTRACT §12 and §32: salesperson accounts and their portal. SPEC leaves the bodies "not shown".

export const SalespersonSummary = Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() });
export type SalespersonSummary = Static<typeof SalespersonSummary>;

export const CreateSalespersonBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  email: Type.String({ format: "email", maxLength: 254 }),
  password: Type.String({ maxLength: 1024 }),
  commissionRate: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "fraction (0.10 = 10 %): the default rate of generated links" })),
});
export type CreateSalespersonBody = Static<typeof CreateSalespersonBody>;

export const CreateSalespersonReply = Type.Object({ success: Type.Boolean(), salesperson: SalespersonSummary });

export const SalespersonView = Type.Object({
  ...SalespersonSummary.properties,
  commissionRate: Type.Union([Type.Number(), Type.Null()]),
  brandId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Number({ description: "Unix ms" }),
});
export type SalespersonView = Static<typeof SalespersonView>;

export const ListSalespeopleReply = Type.Object({ salespeople: Type.Array(SalespersonView), organizationId: Type.String() });
export type ListSalespeopleReply = Static<typeof ListSalespeopleReply>;

export const PortalLoginBody = Type.Object({ email: Type.String({ maxLength: 254 }), password: Type.String({ maxLength: 1024 }) });
export type PortalLoginBody = Static<typeof PortalLoginBody>;

export const PortalLoginReply = Type.Object({ success: Type.Boolean(), salesperson: SalespersonSummary });

const PortalSums = {
  total: Type.Integer({ description: "cents, every commission of the salesperson" }),
  pending: Type.Integer({ description: "cents" }),
  approved: Type.Integer({ description: "cents" }),
  paid: Type.Integer({ description: "cents" }),
  count: Type.Integer(),
  clawedBack: Type.Integer({ description: "cents, ≤ 0: every clawback line (refunds or lost disputes after payout)" }),
  clawbackOpen: Type.Integer({ description: "cents, ≤ 0: the clawbacks the next payout will net" }),
};

/** CONTRACT §32's sums over every commission, and the same sums per currency (amounts only add up within one). */
export const PortalTotals = Type.Object({
  ...PortalSums,
  byCurrency: Type.Array(Type.Object({ currency: Type.String(), ...PortalSums }), {
    description: "one entry per currency, by code; the top-level amounts add minor units across currencies and equal the single entry's when there is one",
  }),
  clawbacks: Type.Array(ClawbackLine, { description: "the salesperson's clawback lines, newest first, at most 100" }),
});
export type PortalTotals = Static<typeof PortalTotals>;

export const PortalStateQuery = Type.Object({ livemode: LivemodeParam });
export type PortalStateQuery = Static<typeof PortalStateQuery>;

/** One sale credited to the salesperson (its commission row): what the portal lists (issue 36 item 14). */
export const PortalSale = Type.Object({
  orderId: Type.String({ description: "the merchant's order id" }),
  createdAt: Type.Number({ description: "Unix ms" }),
  orderAmount: Type.Integer({ description: "the order's amount, minor units" }),
  commissionAmount: Type.Integer({ description: "the commission on it, minor units" }),
  currency: Type.String(),
  status: Type.String({ description: "the commission's status: pending, approved, paid, rejected, disputed…" }),
});
export type PortalSale = Static<typeof PortalSale>;

export const PortalStateReply = Type.Object({
  authenticated: Type.Boolean(),
  livemode: LivemodeMember,
  salesperson: SalespersonSummary,
  commissions: PortalTotals,
  sales: Type.Array(PortalSale, { description: "the salesperson's sales of the mode, newest first, at most 100" }),
});
export type PortalStateReply = Static<typeof PortalStateReply>;

export const PortalLogoutReply = Type.Object({ success: Type.Boolean() });
