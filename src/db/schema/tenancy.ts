import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
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

/**
 * A provider's sandbox credentials, saved as the brand's TEST credentials (issue 33): test objects
 * are then charged at the provider's sandbox instead of the demo adapter. Same columns as
 * provider_settings (which keeps the LIVE credentials), in a table of its own so that the previous
 * release, which reads every provider_settings row of a brand as live credentials and upserts on
 * (brand_id, provider), never sees a sandbox row (migration 0027 says why).
 */
export const providerTestSettings = pgTable(
  "provider_test_settings",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    provider: text("provider").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    publicValues: jsonb("public_values").$type<Record<string, unknown>>().notNull().default({}),
    sealedSecrets: text("sealed_secrets"),
    updatedAt: at("updated_at").notNull(),
    /**
     * Issue 34: the "Simulate outage" switch of the provider's demo adapter in test mode (`down` or
     * `timeout`; null: none). Here so the registry's cached settings read carries it: no statement
     * on the pay path. A row may exist for the switch alone (no credentials: the demo adapter).
     */
    demoOutage: text("demo_outage").$type<"down" | "timeout">(),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.provider] })],
);
