import { sql } from "drizzle-orm";
import { boolean, customType, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { at } from "./columns.js";

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

/**
 * The words `search` matches (docs/admin.md "Audit logs"): action, resource type and id, actor type
 * and id, with dots and underscores also split so `login` finds `user.login`. A stored generated
 * column (the same expression on PGlite and PostgreSQL) with a GIN index.
 */
const SEARCH_TEXT = sql`to_tsvector('simple', action || ' ' || translate(action, '._', '  ') || ' ' || resource_type || ' ' || coalesce(resource_id, '') || ' ' || actor_type || ' ' || coalesce(actor_id, ''))`;

/** Append-only audit trail, written inside the transaction of the change it describes. */
export const auditLogs = pgTable(
  "audit_logs",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id"),
    brandId: text("brand_id"),
    actorType: text("actor_type").$type<"user" | "system" | "api">().notNull(),
    actorId: text("actor_id"),
    action: text("action").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id"),
    success: boolean("success").notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
    /** Never secrets, card data or tokens. */
    details: jsonb("details").$type<Record<string, unknown>>(),
    createdAt: at("created_at").notNull(),
    searchVector: tsvector("search_vector").generatedAlwaysAs(SEARCH_TEXT),
  },
  (t) => [
    index("audit_logs_org_created_idx").on(t.organizationId, t.createdAt),
    index("audit_logs_brand_created_idx").on(t.brandId, t.createdAt),
    // The listing always filters by organization and pages by created_at; these serve its filters.
    index("audit_logs_org_action_created_idx").on(t.organizationId, t.action, t.createdAt),
    index("audit_logs_org_resource_created_idx").on(t.organizationId, t.resourceType, t.createdAt),
    index("audit_logs_org_actor_created_idx").on(t.organizationId, t.actorType, t.createdAt),
    index("audit_logs_search_idx").using("gin", t.searchVector),
  ],
);
