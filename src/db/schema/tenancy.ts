import { boolean, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at } from "./columns.js";

/** The organization and brand created at first start (CONTRACT §27). Fixed ids make creation idempotent. */
export const DEFAULT_ORGANIZATION_ID = "org_default";
export const DEFAULT_BRAND_ID = "brand_default";

export const organizations = pgTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    isDefault: boolean("is_default").notNull().default(false),
    createdAt: at("created_at").notNull(),
    deletedAt: at("deleted_at"),
  },
  (t) => [uniqueIndex("organizations_slug_key").on(t.slug)],
);

export const brands = pgTable(
  "brands",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    /** Display settings for checkout and upsell pages: logo, colour. */
    style: jsonb("style").$type<{ logoUrl?: string; color?: string }>().notNull().default({}),
    /** Where buyers write to about their orders: receipts' Reply-To and footer. */
    supportEmail: text("support_email"),
    /** False for merchants who send their own receipts (src/receipts/). */
    receiptsEnabled: boolean("receipts_enabled").notNull().default(true),
    createdAt: at("created_at").notNull(),
    deletedAt: at("deleted_at"),
  },
  (t) => [uniqueIndex("brands_org_slug_key").on(t.organizationId, t.slug), index("brands_org_idx").on(t.organizationId)],
);

/** Provider credentials per brand; secret values sealed with ENCRYPTION_KEY (CONTRACT §15). */
export const providerSettings = pgTable(
  "provider_settings",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    provider: text("provider").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    /** Non-secret keys in clear (publishableKey, baseUrl, campaignId, ...). */
    publicValues: jsonb("public_values").$type<Record<string, unknown>>().notNull().default({}),
    /** Secret keys as one AES-256-GCM sealed JSON object. */
    sealedSecrets: text("sealed_secrets"),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [uniqueIndex("provider_settings_brand_provider_key").on(t.brandId, t.provider)],
);
