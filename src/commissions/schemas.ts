import { Type, type Static } from "typebox";
import { LivemodeMember, LivemodeParam } from "../http/mode.js";
import { UnixMsParam } from "../lib/dates.js";
import { COMMISSION_ACTIONS, COMMISSION_STATUSES } from "./transitions.js";

// SPEC "Administration: commissions" and CONTRACT §13; member names exact.

export const COMMISSION_PAGE_SIZE_DEFAULT = 20;
/** Larger page sizes are capped, like the audit log's `limit` (docs/admin.md). */
export const COMMISSION_PAGE_SIZE_MAX = 100;
export const BULK_MAX_IDS = 500;

export const CommissionStatusSchema = Type.Enum([...COMMISSION_STATUSES]);

export const CommissionListQuery = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 1_000_000, default: COMMISSION_PAGE_SIZE_DEFAULT, description: "1..100; larger values are capped at 100" }),
  status: Type.Optional(CommissionStatusSchema),
  salespersonId: Type.Optional(Type.String({ minLength: 1 })),
  startDate: Type.Optional(UnixMsParam("created at or after (inclusive)")),
  endDate: Type.Optional(UnixMsParam("created at or before (inclusive)")),
  report: Type.Optional(Type.Boolean({ description: "adds `report`: totals per status and per salesperson" })),
  livemode: LivemodeParam,
});
export type CommissionListQuery = Static<typeof CommissionListQuery>;

export const CommissionView = Type.Object({
  id: Type.String(),
  orderId: Type.String(),
  salespersonId: Type.String(),
  salespersonName: Type.Union([Type.String(), Type.Null()]),
  orderAmount: Type.Integer({ description: "cents" }),
  commissionAmount: Type.Integer({ description: "cents" }),
  currency: Type.String({ description: "ISO 4217 code of both amounts (the order's currency)" }),
  commissionRate: Type.Number(),
  commissionType: Type.String(),
  status: CommissionStatusSchema,
  notes: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Number({ description: "Unix ms" }),
});
export type CommissionView = Static<typeof CommissionView>;

/** A negative line that takes back part of a paid commission after a refund or a lost dispute. */
export const ClawbackLine = Type.Object({
  id: Type.String(),
  commissionId: Type.String(),
  orderId: Type.String(),
  salespersonId: Type.String(),
  amount: Type.Integer({ description: "minor units, negative" }),
  currency: Type.String(),
  refundId: Type.Union([Type.String(), Type.Null()]),
  disputeId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.Integer({ description: "Unix ms" }),
  nettedAt: Type.Union([Type.Integer(), Type.Null()], { description: "when a payout netted it (Unix ms); null while open" }),
});
export type ClawbackLine = Static<typeof ClawbackLine>;

const Totals = Type.Object({ count: Type.Integer(), commissionAmount: Type.Integer(), orderAmount: Type.Integer() });
export type Totals = Static<typeof Totals>;

const TotalsByStatus = Type.Object(Object.fromEntries(COMMISSION_STATUSES.map((s) => [s, Totals])) as Record<(typeof COMMISSION_STATUSES)[number], typeof Totals>);

/** Amounts add up only within one currency: `byCurrency` and `bySalesperson` are per currency (docs/admin.md). */
export const CommissionReport = Type.Object({
  totals: Type.Object(Totals.properties, { description: "count over every currency; the amounts add minor units across currencies (meaningful with one currency only; see byCurrency)" }),
  byStatus: Type.Object(TotalsByStatus.properties, { description: "as totals: amounts across currencies; see byCurrency" }),
  byCurrency: Type.Array(Type.Object({ currency: Type.String(), totals: Totals, byStatus: TotalsByStatus }), { description: "one entry per currency, by code" }),
  clawbacks: Type.Object(
    {
      byCurrency: Type.Array(Type.Object({ currency: Type.String(), count: Type.Integer(), amount: Type.Integer({ description: "all clawbacks, ≤ 0" }), open: Type.Integer({ description: "not netted by a payout yet, ≤ 0" }) })),
      lines: Type.Array(ClawbackLine, { description: "newest first, at most 100" }),
    },
    { description: "the clawback lines of the filtered commissions (CONTRACT §38)" },
  ),
  bySalesperson: Type.Array(
    Type.Object({ salespersonId: Type.String(), salespersonName: Type.Union([Type.String(), Type.Null()]), currency: Type.String(), ...Totals.properties }),
    { description: "one entry per salesperson and currency" },
  ),
});
export type CommissionReport = Static<typeof CommissionReport>;

export const CommissionListReply = Type.Object({
  commissions: Type.Array(CommissionView),
  pagination: Type.Object({ page: Type.Integer(), pageSize: Type.Integer(), total: Type.Integer(), totalPages: Type.Integer() }),
  brandId: Type.Union([Type.String(), Type.Null()]),
  livemode: LivemodeMember,
  report: Type.Optional(CommissionReport),
});
export type CommissionListReply = Static<typeof CommissionListReply>;

export const CommissionBulkBody = Type.Object({
  action: Type.Enum([...COMMISSION_ACTIONS]),
  commissionIds: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: BULK_MAX_IDS }),
  notes: Type.Optional(Type.String({ maxLength: 2000 })),
});
export type CommissionBulkBody = Static<typeof CommissionBulkBody>;

/** A markPaid action's payout to one salesperson in one currency, minor units (docs/admin.md "Commissions follow the money"). */
export const Payout = Type.Object({
  salespersonId: Type.String(),
  currency: Type.String(),
  commissions: Type.Integer({ description: "the commissions this action marked paid" }),
  clawbacks: Type.Integer({ description: "the open clawbacks netted, ≤ 0" }),
  net: Type.Integer({ description: "what to pay: commissions + clawbacks, never below 0" }),
});
export type Payout = Static<typeof Payout>;

export const CommissionBulkReply = Type.Object({
  success: Type.Boolean(),
  updated: Type.Array(Type.String()),
  payouts: Type.Optional(Type.Array(Payout, { description: "markPaid only: one per salesperson and currency paid" })),
  skipped: Type.Array(
    Type.Object({
      id: Type.String(),
      status: Type.Union([CommissionStatusSchema, Type.Null()], { description: "the unchanged status; null when not found" }),
      reason: Type.String(),
    }),
  ),
});
export type CommissionBulkReply = Static<typeof CommissionBulkReply>;
