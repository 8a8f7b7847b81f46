import { boolean, doublePrecision, index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at, cents } from "./columns.js";
import { brands, organizations } from "./tenancy.js";

/**
 * Lasting payment links (issue 18 item 14, docs/admin.md "Payment links"): a stored product offer of
 * one brand. Opening `/l/<code>` mints a fresh, short-lived checkout token from this row, so the
 * price always comes from here, never from a request.
 */
export const paymentLinks = pgTable(
  "payment_links",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    /** 16 random bytes (128 bits), base64url: the public part of the URL. */
    code: text("code").notNull(),
    productName: text("product_name").notNull(),
    description: text("description"),
    imageUrl: text("image_url"),
    quantity: integer("quantity").notNull(),
    unitPriceCents: cents("unit_price_cents").notNull(),
    currency: text("currency").notNull(),
    successUrl: text("success_url"),
    cancelUrl: text("cancel_url"),
    salespersonId: text("salesperson_id"),
    salespersonName: text("salesperson_name"),
    commissionRate: doublePrecision("commission_rate"),
    expiresAt: at("expires_at").notNull(),
    disabledAt: at("disabled_at"),
    createdBy: text("created_by"),
    createdAt: at("created_at").notNull(),
    /** Live (real money) or test, fixed by the credential or mode that made it (CONTRACT §39). */
    livemode: boolean("livemode").notNull().default(false),
  },
  (t) => [uniqueIndex("payment_links_code_key").on(t.code), index("payment_links_brand_created_idx").on(t.brandId, t.createdAt)],
);
