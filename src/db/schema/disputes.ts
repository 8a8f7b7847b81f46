import { boolean, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { orders } from "./checkout.js";
import { at, cents } from "./columns.js";

/**
 * Our statuses of a dispute (chargeback), whatever the provider calls them (src/orders/disputes, docs/orders.md).
 * Open: `needs_response`, `under_review`. Closed: `won` and `charge_refunded` (no money lost by the
 * dispute), `lost` and `accepted` (the merchant gave the money up).
 */
export type DisputeStatus = "needs_response" | "under_review" | "won" | "lost" | "accepted" | "charge_refunded";

/** A buyer's dispute of one charge (the checkout payment or an upsell), as its provider notified it. */
export const disputes = pgTable(
  "disputes",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id").notNull(),
    /** The disputed charge: our order row. */
    orderRef: text("order_ref")
      .notNull()
      .references(() => orders.id),
    /** The merchant's order id of the charge. */
    orderId: text("order_id").notNull(),
    provider: text("provider").notNull(),
    providerDisputeId: text("provider_dispute_id").notNull(),
    amountCents: cents("amount_cents").notNull(),
    currency: text("currency").notNull(),
    reason: text("reason"),
    status: text("status").$type<DisputeStatus>().notNull(),
    /** Until when the provider takes evidence, when it says. */
    dueAt: at("due_at"),
    /** The merchant's evidence text, as last submitted. */
    evidence: text("evidence"),
    evidenceSubmittedAt: at("evidence_submitted_at"),
    /** Whether the provider's API took the evidence (false: it has no call for it; kept with us only). */
    evidenceSent: boolean("evidence_sent"),
    closedAt: at("closed_at"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [
    // Redelivered or later notifications of one dispute update its row instead of adding one.
    uniqueIndex("disputes_provider_dispute_key").on(t.brandId, t.provider, t.providerDisputeId),
    index("disputes_order_ref_idx").on(t.orderRef),
  ],
);
