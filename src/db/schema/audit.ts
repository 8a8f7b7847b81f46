import { boolean, index, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { at } from "./columns.js";

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
  },
  (t) => [index("audit_logs_org_created_idx").on(t.organizationId, t.createdAt), index("audit_logs_brand_created_idx").on(t.brandId, t.createdAt)],
);
