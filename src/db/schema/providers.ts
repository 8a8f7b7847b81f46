import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, varchar } from "drizzle-orm/pg-core";
import { at, cents } from "./columns.js";

/**
 * The demo providers' own ledger: what a real provider would keep on its side (intents, charges,
 * CRM orders, carts, draft orders). Completion verifies payments against it (CONTRACT §19), so demo
 * mode behaves like a real test mode. Only the demo adapters read or write it. Never card numbers:
 * at most the last four digits and the test-card behaviour.
 */
export const demoProviderRecords = pgTable(
  "demo_provider_records",
  {
    id: text("id").primaryKey(),
    provider: text("provider").notNull(),
    kind: text("kind").notNull(),
    orderId: text("order_id"),
    providerOrderId: text("provider_order_id"),
    amountCents: cents("amount_cents"),
    currency: text("currency"),
    status: text("status").notNull(),
    paymentMethodToken: text("payment_method_token"),
    cardLast4: text("card_last4"),
    /** e.g. `decline_saved_charges` for the 4000000000000341 test card. */
    cardBehaviour: text("card_behaviour"),
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  // The token index names the provider too: with only the token in it, the planner's generic plan for
  // the token lookup ANDed it with the (provider, order) index, which reads every row of the provider.
  (t) => [index("demo_provider_records_order_idx").on(t.provider, t.orderId), index("demo_provider_records_token_idx").on(t.paymentMethodToken, t.provider)],
);

/** Declined payment attempts, counted for the card-testing defence (CONTRACT §21). */
export const paymentDeclines = pgTable(
  "payment_declines",
  {
    id: text("id").primaryKey(),
    orderId: text("order_id"),
    clientAddress: text("client_address"),
    reason: text("reason").notNull(),
    createdAt: at("created_at").notNull(),
    /** Issue 34: the normalised code and class (src/payments/decline-codes.ts) and the provider's own code; null on rows from before. */
    declineCode: text("decline_code"),
    declineClass: text("decline_class").$type<"soft" | "hard">(),
    providerCode: text("provider_code"),
    /**
     * Issue 36 item 7: the declined card's keyed fingerprint (HMAC, src/payments/declines.ts
     * cardFingerprint), never the number; null when the charge had no card (a saved method) and on rows
     * from before. The address limit counts distinct fingerprints.
     */
    cardFingerprint: text("card_fingerprint"),
  },
  (t) => [index("payment_declines_order_idx").on(t.orderId, t.createdAt), index("payment_declines_address_idx").on(t.clientAddress, t.createdAt)],
);

/**
 * One successful charge per (brand, orderId) on the card-taking provider endpoints (CONTRACT §37).
 * A `charging` row is held while the provider is called (taken over after a minute when its request
 * died); `paid` keeps the first answer, replayed to an identical repeat for 24 hours. A decline
 * deletes the row, so the buyer may try again. Never card data: `request_hash` is keyed (HMAC).
 */
export const orderCharges = pgTable(
  "order_charges",
  {
    brandId: text("brand_id").notNull(),
    orderId: text("order_id").notNull(),
    provider: text("provider").notNull(),
    state: text("state").$type<"charging" | "paid">().notNull(),
    requestHash: text("request_hash").notNull(),
    /** Sent to the provider as its idempotency key; kept when a dead request's claim is taken over. */
    providerKey: text("provider_key").notNull(),
    reply: jsonb("reply").$type<Record<string, unknown>>(),
    createdAt: at("created_at").notNull(),
    paidAt: at("paid_at"),
    /**
     * The pay verb's route decision (issue 34), written before its first provider call when it is more
     * than the claim's `provider` alone: a takeover after a crash asks the same providers in the same
     * order (each with the same key), whatever routing would decide now. Null: `provider` alone.
     */
    plan: jsonb("plan").$type<{ providers: string[]; ruleId: string | null; ruleName: string; reason: string }>(),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.orderId] }), index("order_charges_reply_idx").on(t.paidAt).where(sql`reply is not null`)],
);

/**
 * One row per provider a pay request tried (issue 34, docs/orchestration.md "Cascades"): the route
 * decision (rule, why), the result and its normalised decline code. Never card data: the card's
 * brand, its first six digits and the BIN's country at most. The id is made of the claim's provider
 * key and the provider, so a takeover that asks a provider again records its attempt once.
 */
export const paymentAttempts = pgTable(
  "payment_attempts",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id").notNull(),
    livemode: boolean("livemode").notNull(),
    orderId: text("order_id").notNull(),
    checkoutId: text("checkout_id"),
    provider: text("provider").notNull(),
    /** 0: the first provider of the route; 1: the first cascade; … */
    cascadeIndex: integer("cascade_index").notNull(),
    ruleId: text("rule_id"),
    ruleName: text("rule_name").notNull(),
    routeReason: text("route_reason").notNull(),
    result: text("result").$type<"approved" | "declined" | "failed" | "requires_action">().notNull(),
    declineCode: text("decline_code"),
    declineClass: text("decline_class").$type<"soft" | "hard">(),
    providerCode: text("provider_code"),
    amountCents: cents("amount_cents").notNull(),
    currency: text("currency").notNull(),
    cardBrand: text("card_brand"),
    /** At most the first 6 digits. */
    cardBin: varchar("card_bin", { length: 6 }),
    /** The last four digits, as a receipt or the order's page shows them (issue 36): never more of the number. */
    cardLast4: varchar("card_last4", { length: 4 }),
    binCountry: text("bin_country"),
    transactionId: text("transaction_id"),
    createdAt: at("created_at").notNull(),
  },
  (t) => [index("payment_attempts_order_idx").on(t.brandId, t.orderId), index("payment_attempts_brand_time_idx").on(t.brandId, t.livemode, t.createdAt)],
);
