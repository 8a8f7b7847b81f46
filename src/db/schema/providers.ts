import { index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
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
  },
  (t) => [index("payment_declines_order_idx").on(t.orderId, t.createdAt), index("payment_declines_address_idx").on(t.clientAddress, t.createdAt)],
);
