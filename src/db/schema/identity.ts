import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { at } from "./columns.js";
import { brands, organizations } from "./tenancy.js";

export type OrganizationRole = "owner" | "admin" | "member";
export type BrandRole = "admin" | "member";

/** Administration users. `email` is stored lower-cased; the unique index decides concurrent registrations. */
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    /** argon2id PHC string; null for accounts created by social sign-in. */
    passwordHash: text("password_hash"),
    /** The customer record at the intent gateway (`cus_demo_…` while it is in demo mode). */
    customerId: text("customer_id"),
    /** TOTP secret sealed with ENCRYPTION_KEY; set once 2FA is confirmed. */
    totpSecretSealed: text("totp_secret_sealed"),
    /** Secret issued by setup, waiting for confirm. */
    totpPendingSecretSealed: text("totp_pending_secret_sealed"),
    totpEnabled: boolean("totp_enabled").notNull().default(false),
    /** Highest 30 s step accepted so far: every code is accepted once (CONTRACT §10). */
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    /** TOTP codes refused until then: ten wrong ones within an hour (issue 31 item 7, identity/code-limit.ts). */
    totpLockedUntil: at("totp_locked_until"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email)],
);

export const memberships = pgTable(
  "memberships",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    role: text("role").$type<OrganizationRole>().notNull(),
    createdAt: at("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.organizationId] }), index("memberships_org_idx").on(t.organizationId)],
);

export const brandAccess = pgTable(
  "brand_access",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    role: text("role").$type<BrandRole>().notNull(),
    createdAt: at("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.brandId] }), index("brand_access_brand_idx").on(t.brandId)],
);

/** Administration sessions. The cookie holds a 256-bit random id; only its sha256 is stored. */
export const sessions = pgTable(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    organizationId: text("organization_id"),
    brandId: text("brand_id"),
    createdAt: at("created_at").notNull(),
    lastSeenAt: at("last_seen_at").notNull(),
    /** Absolute end (SESSION_MAX_HOURS after creation); idle end is lastSeenAt + SESSION_IDLE_MINUTES. */
    expiresAt: at("expires_at").notNull(),
    ipAddress: text("ip_address"),
    userAgent: text("user_agent"),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

/** A password, magic-link or social login waiting for the TOTP code (CONTRACT §10). */
export const pendingLogins = pgTable(
  "pending_logins",
  {
    idHash: text("id_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    method: text("method").$type<LoginMethod>().notNull(),
    failedAttempts: integer("failed_attempts").notNull().default(0),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
  },
  (t) => [index("pending_logins_user_idx").on(t.userId)],
);

export type LoginMethod = "password" | "magic_link" | "social_a" | "social_b";

export const magicLinks = pgTable(
  "magic_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    usedAt: at("used_at"),
    /** Set when a newer link for the same user was issued. */
    voidedAt: at("voided_at"),
  },
  (t) => [index("magic_links_user_created_idx").on(t.userId, t.createdAt)],
);

export const socialAccounts = pgTable(
  "social_accounts",
  {
    provider: text("provider").$type<"social_a" | "social_b">().notNull(),
    subject: text("subject").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    email: text("email"),
    createdAt: at("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.subject] }), index("social_accounts_user_idx").on(t.userId)],
);

/** Password login attempts, for the account lock and the per-address limit (CONTRACT §23). */
/**
 * What a login attempt is about: the password (per email, CONTRACT §23) or the user's TOTP code at
 * any 2FA step (per user, issue 31 item 7; keyed by the user's email, which never changes).
 */
export type LoginFactor = "password" | "two_factor";

export const loginAttempts = pgTable(
  "login_attempts",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    ipAddress: text("ip_address"),
    success: boolean("success").notNull(),
    factor: text("factor").$type<LoginFactor>().notNull().default("password"),
    createdAt: at("created_at").notNull(),
  },
  (t) => [index("login_attempts_email_idx").on(t.email, t.createdAt), index("login_attempts_ip_idx").on(t.ipAddress, t.createdAt)],
);

/** Password login locked for an email address (known or not, so a lock reveals nothing). */
export const loginLocks = pgTable("login_locks", {
  email: text("email").primaryKey(),
  lockedUntil: at("locked_until").notNull(),
  createdAt: at("created_at").notNull(),
});

/** Every outgoing mail, written in the transaction that causes it; a worker sends and retries. */
export const mailOutbox = pgTable(
  "mail_outbox",
  {
    id: text("id").primaryKey(),
    to: text("to_address").notNull(),
    subject: text("subject").notNull(),
    text: text("text_body").notNull(),
    html: text("html_body"),
    /** The sender's display name (a receipt: the brand's name); MAIL_FROM's address is kept. */
    fromName: text("from_name"),
    replyTo: text("reply_to"),
    status: text("status").$type<"pending" | "sent" | "failed" | "logged">().notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    nextAttemptAt: at("next_attempt_at").notNull(),
    createdAt: at("created_at").notNull(),
    sentAt: at("sent_at"),
  },
  (t) => [index("mail_outbox_pending_idx").on(t.nextAttemptAt).where(sql`status = 'pending'`)],
);

/**
 * 2FA recovery codes (issue 18 item 15): ten per user, minted when 2FA is enabled or regenerated,
 * shown once. Only an HMAC-SHA-256 of the normalised code keyed with ENCRYPTION_KEY is stored;
 * `used_at` is set by a conditional UPDATE, so each code signs in once.
 */
export const twoFactorRecoveryCodes = pgTable(
  "two_factor_recovery_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: at("created_at").notNull(),
    usedAt: at("used_at"),
  },
  (t) => [index("two_factor_recovery_codes_user_idx").on(t.userId)],
);
