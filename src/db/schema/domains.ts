import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at } from "./columns.js";
import { brands } from "./tenancy.js";

/** A verification challenge the hosting platform asks for (a TXT record), as it sent it. */
export interface DomainChallenge {
  type: string;
  domain: string;
  value: string;
  reason?: string;
}

/**
 * Custom domains per brand (SPEC "Domain"). A host name serves one brand only, so `domain` is unique
 * across all brands; one primary per brand (partial unique index).
 */
export const customDomains = pgTable(
  "custom_domains",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    /** Lower-case ASCII (punycode) host name without a trailing dot. */
    domain: text("domain").notNull(),
    isRoot: boolean("is_root").notNull(),
    verified: boolean("verified").notNull().default(false),
    primary: boolean("primary").notNull().default(false),
    /** The platform's pending challenges; empty once verified. */
    challenges: jsonb("challenges").$type<DomainChallenge[]>().notNull().default([]),
    createdAt: at("created_at").notNull(),
    verifiedAt: at("verified_at"),
  },
  (t) => [
    uniqueIndex("custom_domains_domain_key").on(t.domain),
    index("custom_domains_brand_idx").on(t.brandId),
    uniqueIndex("custom_domains_one_primary_key").on(t.brandId).where(sql`${t.primary}`),
  ],
);

/** Display names a brand gives to the lists of its marketing integrations (SPEC "Marketing list mappings"). */
export const listMappings = pgTable(
  "list_mappings",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    /** `email_list_a`, `email_list_b` or `sms_segments`. */
    source: text("source").notNull(),
    listId: text("list_id").notNull(),
    displayName: text("display_name").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [uniqueIndex("list_mappings_brand_source_list_key").on(t.brandId, t.source, t.listId)],
);
