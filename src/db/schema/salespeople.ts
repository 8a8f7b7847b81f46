import { boolean, doublePrecision, index, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at } from "./columns.js";
import { organizations } from "./tenancy.js";

/** Salesperson accounts (CONTRACT §12): their own login, separate from administration users. */
export const salespeople = pgTable(
  "salespeople",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    /** The brand the salesperson was created in (the creator's session brand), when there was one. */
    brandId: text("brand_id"),
    name: text("name").notNull(),
    /** Stored lower-cased; unique per organization. */
    email: text("email").notNull(),
    /** argon2id PHC string, like users. */
    passwordHash: text("password_hash").notNull(),
    /** Default rate for generated links: a fraction (0.10 = 10 %). */
    commissionRate: doublePrecision("commission_rate"),
    createdAt: at("created_at").notNull(),
  },
  (t) => [uniqueIndex("salespeople_org_email_key").on(t.organizationId, t.email), index("salespeople_email_idx").on(t.email)],
);

/** Salesperson portal sessions: the cookie holds a random id, only its sha256 is stored. */
export const salespersonSessions = pgTable(
  "salesperson_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    salespersonId: text("salesperson_id")
      .notNull()
      .references(() => salespeople.id, { onDelete: "cascade" }),
    createdAt: at("created_at").notNull(),
    lastSeenAt: at("last_seen_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [index("salesperson_sessions_sp_idx").on(t.salespersonId)],
);

/** Portal login attempts, for the portal's own brute-force limit (docs/admin.md). */
export const salespersonLoginAttempts = pgTable(
  "salesperson_login_attempts",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    ipAddress: text("ip_address"),
    success: boolean("success").notNull(),
    createdAt: at("created_at").notNull(),
  },
  (t) => [index("salesperson_login_attempts_email_idx").on(t.email, t.createdAt)],
);
