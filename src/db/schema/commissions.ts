import { sql } from "drizzle-orm";
import { boolean, doublePrecision, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at, cents } from "./columns.js";

export type CommissionStatus = "pending" | "approved" | "paid" | "cancelled" | "disputed";

export const commissions = pgTable(
  "commissions",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id").notNull(),
    brandId: text("brand_id").notNull(),
    /** Our order row; `orderId` is the merchant's order id shown on the wire. */
    orderRef: text("order_ref").notNull(),
    orderId: text("order_id").notNull(),
    salespersonId: text("salesperson_id").notNull(),
    salespersonName: text("salesperson_name"),
    salespersonEmail: text("salesperson_email"),
    teamId: text("team_id"),
    teamName: text("team_name"),
    source: text("source"),
    campaignCode: text("campaign_code"),
    orderAmountCents: cents("order_amount_cents").notNull(),
    commissionAmountCents: cents("commission_amount_cents").notNull(),
    /** The order's currency (ISO 4217, upper case): both amounts are in it, and sums are only per currency. */
    currency: text("currency").notNull(),
    commissionRate: doublePrecision("commission_rate").notNull(),
    commissionType: text("commission_type").$type<"percentage" | "fixed">().notNull(),
    status: text("status").$type<CommissionStatus>().notNull(),
    /** While a provider's dispute holds it `disputed`: the status a dispute won gives back (src/commissions/follow-money.ts). */
    statusBeforeDispute: text("status_before_dispute").$type<CommissionStatus>(),
    notes: text("notes"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [
    index("commissions_brand_created_idx").on(t.brandId, t.createdAt),
    index("commissions_salesperson_idx").on(t.salespersonId),
    // One commission per order: completion creates it once, even for concurrent duplicates (CONTRACT §7).
    uniqueIndex("commissions_order_key").on(t.orderRef),
  ],
);

/**
 * Commissions follow the money (CONTRACT §38, docs/admin.md "Commissions follow the money"): a
 * `reduction` is the pro rata part a partial refund took off a pending or approved commission (its
 * commissionAmount is lowered by as much); a `clawback` is the part a refund or lost dispute takes
 * back of a paid one, a negative line the next payout nets (`netted_at`). Amounts are negative.
 */
export const commissionAdjustments = pgTable(
  "commission_adjustments",
  {
    id: text("id").primaryKey(),
    commissionId: text("commission_id")
      .notNull()
      .references(() => commissions.id),
    organizationId: text("organization_id").notNull(),
    brandId: text("brand_id").notNull(),
    salespersonId: text("salesperson_id").notNull(),
    /** The merchant's order id of the commissioned charge. */
    orderId: text("order_id").notNull(),
    kind: text("kind").$type<"reduction" | "clawback">().notNull(),
    amountCents: cents("amount_cents").notNull(),
    currency: text("currency").notNull(),
    /** What took the money back: a refund or a dispute. */
    refundId: text("refund_id"),
    disputeId: text("dispute_id"),
    /** A clawback: when a payout (markPaid) netted it; null while it is open. */
    nettedAt: at("netted_at"),
    createdAt: at("created_at").notNull(),
  },
  (t) => [
    index("commission_adjustments_commission_idx").on(t.commissionId),
    // The next payout's netting looks for a salesperson's open clawbacks.
    index("commission_adjustments_open_idx").on(t.organizationId, t.salespersonId, t.currency, t.createdAt).where(sql`kind = 'clawback' and netted_at is null`),
  ],
);
