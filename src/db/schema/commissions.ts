import { doublePrecision, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
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
    notes: text("notes"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [
    index("commissions_brand_created_idx").on(t.brandId, t.createdAt),
    index("commissions_salesperson_idx").on(t.salespersonId),
    // One commission per order: completion creates it once, even for concurrent duplicates (CONTRACT §7).
    uniqueIndex("commissions_order_key").on(t.orderRef),
  ],
);
