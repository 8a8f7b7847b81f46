import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { at, cents } from "./columns.js";
import type { FunnelOfferRef } from "./funnels.js";
import { brands } from "./tenancy.js";

/** An offer as fixed at session creation: its price can no longer change (CONTRACT §20). */
export interface StoredOffer {
  id: string;
  name: string;
  description?: string;
  priceCents: number;
  originalPriceCents?: number;
  image?: string;
  externalPageUrl?: string;
  /** Set on a downsell: the offer whose decline makes it appear (CONTRACT §9). */
  downsellOf?: string;
  /** Set on the offers of a session a funnel created (docs/funnels.md). */
  funnel?: FunnelOfferRef;
}

/**
 * One post-purchase upsell session (SPEC "Upsell session"). `flow` is the eligible offers in order,
 * each downsell right after its offer. `accepted_offers`/`declined_offers` mirror the rows of
 * upsell_offer_results and are written in the same transaction.
 */
export const upsellSessions = pgTable(
  "upsell_sessions",
  {
    /** `ups_` + 128 random bits: the id is the only thing guarding the session (CONTRACT §20). */
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    /** The merchant's new order id for the upsells (create-session `orderId`). */
    orderId: text("order_id").notNull(),
    originalOrderId: text("original_order_id").notNull(),
    /** orders.id of the original checkout order. */
    originalOrderRef: text("original_order_ref").notNull(),
    checkoutId: text("checkout_id"),
    provider: text("provider").notNull(),
    paymentMethodToken: text("payment_method_token").notNull(),
    customerEmail: text("customer_email").notNull(),
    customerId: text("customer_id"),
    currency: text("currency").notNull(),
    status: text("status").$type<"active" | "completed" | "expired">().notNull(),
    flow: jsonb("flow").$type<StoredOffer[]>().notNull(),
    acceptedOffers: jsonb("accepted_offers").$type<string[]>().notNull(),
    declinedOffers: jsonb("declined_offers").$type<string[]>().notNull(),
    totalUpsellCents: cents("total_upsell_cents").notNull(),
    currentStep: integer("current_step").notNull(),
    totalOffers: integer("total_offers").notNull(),
    successUrl: text("success_url"),
    webhookUrl: text("webhook_url"),
    metadata: jsonb("metadata").$type<Record<string, string>>(),
    themeId: text("theme_id"),
    expiresAt: at("expires_at").notNull(),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [index("upsell_sessions_original_order_idx").on(t.originalOrderRef), index("upsell_sessions_brand_created_idx").on(t.brandId, t.createdAt)],
);

/**
 * One row per answered offer. The primary key (session, offer) is what makes an answer happen once
 * (CONTRACT §7): a charge of the offer (accept, pay-with-card) claims the row (`pending`) in a statement
 * of its own, calls the provider with no connection held, and then finalises it (`accepted`), or marks
 * it `refused` when the charge was refused, which leaves the offer open (src/upsell/charge-offer.ts).
 */
export const upsellOfferResults = pgTable(
  "upsell_offer_results",
  {
    sessionId: text("session_id")
      .notNull()
      .references(() => upsellSessions.id),
    offerId: text("offer_id").notNull(),
    decision: text("decision").$type<"pending" | "refused" | "accepted" | "declined">().notNull(),
    transactionId: text("transaction_id"),
    amountCents: cents("amount_cents"),
    /** orders.id of the upsell order an accept created. */
    orderRef: text("order_ref"),
    /** The first answer's response, replayed to repeats. */
    result: jsonb("result").$type<Record<string, unknown>>(),
    /**
     * The provider idempotency key of the charge that claimed the row (`upsell:<session>:<offer>` for
     * the saved method, `upsell-card:…` for another card): a claim left by a request that died is taken
     * over only by the same kind of charge, which sends the same key again.
     */
    chargeKey: text("charge_key"),
    /** When the row was written; for a `pending` row, when its charge was claimed. */
    createdAt: at("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.offerId] })],
);

/** Take-rate counters per brand, offer id and currency, so stats never scan sessions (issue 3). */
export const upsellOfferStats = pgTable(
  "upsell_offer_stats",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    offerId: text("offer_id").notNull(),
    /** Revenue is only summable within one currency. */
    currency: text("currency").notNull(),
    /**
     * Test and live counted apart (CONTRACT §39): the mode of the sessions counted. Live rows use the
     * shards OFFER_STATS_SHARDS and up, so the key stays the one the previous release writes on
     * (expand only, docs/operations.md "Migrations") and one mode never adds into the other's row.
     */
    livemode: boolean("livemode").notNull().default(false),
    shown: bigint("shown", { mode: "number" }).notNull().default(sql`0`),
    accepted: bigint("accepted", { mode: "number" }).notNull().default(sql`0`),
    declined: bigint("declined", { mode: "number" }).notNull().default(sql`0`),
    revenueCents: cents("revenue_cents").notNull().default(sql`0`),
    /**
     * Every create-session and answer adds to its offer's counters, and a counter row stays locked
     * until the change commits: one row per offer made a popular offer's sessions and accepts wait
     * for each other. Each change picks one of OFFER_STATS_SHARDS rows; readers sum them.
     */
    shard: smallint("shard").notNull().default(0),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.offerId, t.currency, t.shard] })],
);
