import { Type, type Static } from "typebox";
import { LivemodeMember, LivemodeParam } from "../http/mode.js";
import { DayParam } from "../lib/dates.js";

// Approval analytics (issue 34 item 7, docs/orchestration.md "Approval analytics"). Money is integer minor units.

export const APPROVALS_DAYS_DEFAULT = 30;
export const APPROVALS_DAYS_MAX = 366;

export const ApprovalsQuery = Type.Object({
  brandId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "the session's brand (the only one answered; another is 404)" })),
  livemode: LivemodeParam,
  from: Type.Optional(DayParam("the first day (inclusive); default: 29 days before `to`")),
  to: Type.Optional(DayParam("the last day (inclusive); default: today")),
  currency: Type.Optional(Type.String({ pattern: "^[A-Z]{3}$", description: "default: the currency with the most attempts in the period" })),
});
export type ApprovalsQuery = Static<typeof ApprovalsQuery>;

const figures = {
  attempts: Type.Integer({ description: "answers a bank gave: approved + declined (what the rate is of)" }),
  approved: Type.Integer(),
  declined: Type.Integer(),
  failed: Type.Integer({ description: "attempts the provider itself failed (timeout, 5xx): not in `attempts` nor in the rate" }),
  approvalRate: Type.Number({ description: "approved / attempts, 0 to 1 (0 without attempts)" }),
  approvedAmount: Type.Integer({ description: "minor units of `currency`" }),
  refundedAmount: Type.Integer({ description: "refunds that settled on the approved charges (counted on the charge's day)" }),
  netAmount: Type.Integer({ description: "approvedAmount − refundedAmount" }),
  recovered: Type.Integer({ description: "approvals after a soft decline earlier in the same pay request (a cascade saved the sale)" }),
  recoveredAmount: Type.Integer(),
};
export const ApprovalFigures = Type.Object(figures);
export type ApprovalFigures = Static<typeof ApprovalFigures>;
const Breakdown = (description: string) => Type.Array(Type.Object({ value: Type.String({ description: "'' when unknown" }), ...figures }), { description });

export const ApprovalsReply = Type.Object({
  brandId: Type.String(),
  livemode: LivemodeMember,
  from: Type.String({ description: "YYYY-MM-DD (UTC)" }),
  to: Type.String({ description: "YYYY-MM-DD (UTC)" }),
  currency: Type.Union([Type.String(), Type.Null()], { description: "the currency of every figure; null without attempts" }),
  currencies: Type.Array(Type.Object({ currency: Type.String(), attempts: Type.Integer() }), { description: "the period's currencies, most attempts first" }),
  totals: ApprovalFigures,
  byProvider: Breakdown("per provider, most attempts first"),
  byDeclineCode: Type.Array(Type.Object({ value: Type.String({ description: "the normalised decline code" }), declined: Type.Integer(), failed: Type.Integer(), share: Type.Number({ description: "of all declined and failed attempts, 0 to 1" }) }), { description: "per normalised decline code of the declined and failed attempts, most first" }),
  byCardBrand: Breakdown("per card brand, most attempts first"),
  byBinCountry: Breakdown("per BIN country (the card's issuing country), most attempts first"),
  byAmountBand: Breakdown("per amount band in major units: <10, 10-50, 50-100, 100-500, 500+ (in this order)"),
  byDay: Type.Array(Type.Object({ day: Type.String({ description: "YYYY-MM-DD (UTC)" }), ...figures }), { description: "days with attempts or refunds, oldest first" }),
});
export type ApprovalsReply = Static<typeof ApprovalsReply>;
