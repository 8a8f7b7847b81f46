import { Type, type Static } from "typebox";
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
  startDate: Type.Optional(Type.Integer({ minimum: 0, description: "Unix ms, inclusive" })),
  endDate: Type.Optional(Type.Integer({ minimum: 0, description: "Unix ms, inclusive" })),
  report: Type.Optional(Type.Boolean({ description: "adds `report`: totals per status and per salesperson" })),
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

const Totals = Type.Object({ count: Type.Integer(), commissionAmount: Type.Integer(), orderAmount: Type.Integer() });
export type Totals = Static<typeof Totals>;

const TotalsByStatus = Type.Object(Object.fromEntries(COMMISSION_STATUSES.map((s) => [s, Totals])) as Record<(typeof COMMISSION_STATUSES)[number], typeof Totals>);

/** Amounts add up only within one currency: `byCurrency` and `bySalesperson` are per currency (docs/admin.md). */
export const CommissionReport = Type.Object({
  totals: Type.Object(Totals.properties, { description: "count over every currency; the amounts add minor units across currencies (meaningful with one currency only; see byCurrency)" }),
  byStatus: Type.Object(TotalsByStatus.properties, { description: "as totals: amounts across currencies; see byCurrency" }),
  byCurrency: Type.Array(Type.Object({ currency: Type.String(), totals: Totals, byStatus: TotalsByStatus }), { description: "one entry per currency, by code" }),
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
  report: Type.Optional(CommissionReport),
});
export type CommissionListReply = Static<typeof CommissionListReply>;

export const CommissionBulkBody = Type.Object({
  action: Type.Enum([...COMMISSION_ACTIONS]),
  commissionIds: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { minItems: 1, maxItems: BULK_MAX_IDS }),
  notes: Type.Optional(Type.String({ maxLength: 2000 })),
});
export type CommissionBulkBody = Static<typeof CommissionBulkBody>;

export const CommissionBulkReply = Type.Object({
  success: Type.Boolean(),
  updated: Type.Array(Type.String()),
  skipped: Type.Array(
    Type.Object({
      id: Type.String(),
      status: Type.Union([CommissionStatusSchema, Type.Null()], { description: "the unchanged status; null when not found" }),
      reason: Type.String(),
    }),
  ),
});
export type CommissionBulkReply = Static<typeof CommissionBulkReply>;
