import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at, cents } from "./columns.js";
import { brands } from "./tenancy.js";

/** One row per merchant order being paid: created by initialize, closed by complete. */
export const checkouts = pgTable(
  "checkouts",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    orderId: text("order_id").notNull(),
    /** sha256 of the token that opened it: initialize with the same token updates this row. */
    tokenHash: text("token_hash").notNull(),
    /** The token's claims (order data shown on the page); never card data. */
    claims: jsonb("claims").$type<Record<string, unknown>>().notNull(),
    amountCents: cents("amount_cents").notNull(),
    currency: text("currency").notNull(),
    provider: text("provider"),
    providerOrderId: text("provider_order_id"),
    customer: jsonb("customer").$type<Record<string, unknown> | null>(),
    shippingAddress: jsonb("shipping_address").$type<Record<string, unknown> | null>(),
    billingAddress: jsonb("billing_address").$type<Record<string, unknown> | null>(),
    status: text("status").$type<"initialized" | "completed">().notNull(),
    webhookUrl: text("webhook_url"),
    successUrl: text("success_url"),
    tokenExpiresAt: at("token_expires_at").notNull(),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    completedAt: at("completed_at"),
    /** The provider's latest word on the payment, from its notifications (src/payments/incoming). */
    paymentStatus: text("payment_status").$type<"succeeded" | "failed" | "refunded">(),
    /**
     * Who is recording the checkout's order in its CRM (src/checkout/record-in-crm.ts): a completion
     * or the administration's retry holds this claim while it calls the CRM, with no transaction open;
     * the write that follows clears it. Null while no one is.
     */
    crmClaim: text("crm_claim"),
    /** When crmClaim was taken: an older claim belongs to a request that died and may be taken over. */
    crmClaimedAt: at("crm_claimed_at"),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [uniqueIndex("checkouts_brand_order_key").on(t.brandId, t.orderId), index("checkouts_order_idx").on(t.orderId)],
);

/** Orders: one per completed checkout (kind `checkout`) and one per accepted upsell (kind `upsell`). */
export const orders = pgTable(
  "orders",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    kind: text("kind").$type<"checkout" | "upsell">().notNull(),
    /** Unique: completion is keyed by its checkout, so concurrent duplicates make one order (CONTRACT §7). */
    checkoutId: text("checkout_id").references(() => checkouts.id),
    parentOrderId: text("parent_order_id"),
    orderId: text("order_id").notNull(),
    transactionId: text("transaction_id").notNull(),
    provider: text("provider").notNull(),
    providerOrderId: text("provider_order_id"),
    amountCents: cents("amount_cents").notNull(),
    currency: text("currency").notNull(),
    customerEmail: text("customer_email").notNull(),
    customerName: text("customer_name").notNull(),
    customer: jsonb("customer").$type<Record<string, unknown> | null>(),
    billingAddress: jsonb("billing_address").$type<Record<string, unknown> | null>(),
    shippingAddress: jsonb("shipping_address").$type<Record<string, unknown> | null>(),
    /** The saved payment method, usable only for upsells of this order (CONTRACT §8). */
    paymentMethodToken: text("payment_method_token"),
    crmProvider: text("crm_provider"),
    crmOrderId: text("crm_order_id"),
    crmStatus: text("crm_status").$type<"recorded" | "skipped" | "failed">(),
    crmCampaignId: text("crm_campaign_id"),
    affId: text("aff_id"),
    subId: text("sub_id"),
    /** The response of the first completion, replayed to identical repeats (CONTRACT §7). */
    result: jsonb("result").$type<Record<string, unknown>>().notNull(),
    createdAt: at("created_at").notNull(),
    /** The provider's latest word on the payment, from its notifications (src/payments/incoming). */
    paymentStatus: text("payment_status").$type<"succeeded" | "failed" | "refunded">(),
    /** Paid through a provider's demo adapter (no real money): money paths then need no API key (CONTRACT §35). Null before 0006. */
    paidInDemo: boolean("paid_in_demo"),
    /** What succeeded refunds gave back of this charge (src/orders/refunds.ts); never more than amountCents. */
    refundedCents: cents("refunded_cents").notNull().default(0),
    /** The charge has a dispute that is open or was lost (src/orders/disputes): its status reads `disputed`. */
    disputed: boolean("disputed").notNull().default(false),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
    /**
     * The checkout's metadata (its token's `metadata` claim), on every order of the checkout: its own
     * and its upsells' (issue 33). Events of the chain carry it as `checkoutMetadata`.
     */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
  },
  (t) => [
    uniqueIndex("orders_checkout_key").on(t.checkoutId),
    index("orders_brand_created_idx").on(t.brandId, t.createdAt),
    // The lists of one mode (CONTRACT §39): a shop's few test orders are found without reading its live ones.
    index("orders_brand_mode_created_idx").on(t.brandId, t.livemode, t.createdAt),
    index("orders_order_id_idx").on(t.orderId),
    index("orders_transaction_idx").on(t.provider, t.transactionId),
    /** Disputes of the hosted store name its order, not a transaction (src/orders/store.ts). */
    index("orders_provider_order_idx").on(t.provider, t.providerOrderId).where(sql`provider_order_id is not null`),
    index("orders_parent_idx").on(t.parentOrderId),
    // The orders list's search (src/orders/store.ts): a transaction id, the start of an email or a name in one brand.
    index("orders_brand_transaction_idx").on(t.brandId, t.transactionId),
    index("orders_brand_email_idx").on(t.brandId, sql`lower(${t.customerEmail}) text_pattern_ops`),
    index("orders_brand_name_idx").on(t.brandId, sql`lower(${t.customerName}) text_pattern_ops`),
    // The status filters other than `paid` (AFTER_SALE in src/orders/store.ts, same predicate).
    index("orders_brand_after_sale_idx").on(t.brandId, t.createdAt).where(sql`(payment_status is not null or refunded_cents > 0 or disputed)`),
    // A payment link's sales (src/admin/payment-links.ts, issue 36 item 14): the checkout orders its token's metadata names it in.
    index("orders_brand_payment_link_idx")
      .on(t.brandId, sql`(metadata ->> 'paymentLinkId')`)
      .where(sql`kind = 'checkout' and (metadata ->> 'paymentLinkId') is not null`),
  ],
);

/**
 * Refunds of one charge: an order row (the checkout payment or an upsell). A `pending` refund holds its
 * amount while the provider is asked, so concurrent refunds never sum past the charge (CONTRACT §38).
 */
export const refunds = pgTable(
  "refunds",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id").notNull(),
    /** The charge refunded: our order row. */
    orderRef: text("order_ref")
      .notNull()
      .references(() => orders.id),
    /** The merchant's order id of the charge. */
    orderId: text("order_id").notNull(),
    provider: text("provider").notNull(),
    amountCents: cents("amount_cents").notNull(),
    currency: text("currency").notNull(),
    reason: text("reason").$type<"requested_by_customer" | "duplicate" | "fraudulent" | "other">().notNull(),
    note: text("note"),
    status: text("status").$type<"pending" | "succeeded" | "failed">().notNull(),
    providerRefundId: text("provider_refund_id"),
    /** The provider's reason for refusing, when `failed`. */
    failureReason: text("failure_reason"),
    /** Who asked: a user or an API key (`user:<id>`, `api:<id>`). */
    requestedBy: text("requested_by").notNull(),
    /** Reconciler looks at the provider for this pending refund (refund-reconciler.ts). */
    attempts: integer("attempts").notNull().default(0),
    /** When the reconciler may next look: past the request's own provider call, then its lease. */
    nextAttemptAt: at("next_attempt_at").notNull().defaultNow(),
    /** The merchant's own metadata of this refund (issue 33): in its answers and its events. */
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [index("refunds_order_ref_idx").on(t.orderRef), index("refunds_pending_idx").on(t.nextAttemptAt).where(sql`status = 'pending'`)],
);

export const orderLineItems = pgTable(
  "order_line_items",
  {
    id: text("id").primaryKey(),
    orderRef: text("order_ref")
      .notNull()
      .references(() => orders.id),
    itemId: text("item_id").notNull(),
    name: text("name"),
    quantity: integer("quantity").notNull(),
    unitPriceCents: cents("unit_price_cents").notNull(),
    sku: text("sku"),
  },
  (t) => [index("order_line_items_order_idx").on(t.orderRef)],
);

/** Short checkout links `/c/<code>` (at least 64 random bits, unguessable). */
export const shortLinks = pgTable("short_links", {
  code: text("code").primaryKey(),
  token: text("token").notNull(),
  brandId: text("brand_id").notNull(),
  createdAt: at("created_at").notNull(),
  expiresAt: at("expires_at").notNull(),
});
