import { sql } from "drizzle-orm";
import { bigint, boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { at, cents } from "./columns.js";
import { brands } from "./tenancy.js";

// Upsell funnels built in the back office (issue 19, docs/funnels.md). The JSON shapes are checked by
// the TypeBox schemas of src/funnels/schemas.ts before they are stored.

/** One condition on the original order. */
export type FunnelCondition =
  | { type: "product"; productIds?: string[]; productNames?: string[] }
  | { type: "orderTotal"; min?: number; max?: number }
  | { type: "currency"; in: string[] }
  | { type: "country"; in: string[] }
  | { type: "firstOrder"; value: boolean };

/** AND (`all`) or OR (`any`) over conditions; a group holds conditions only (two levels at most). */
export interface FunnelConditionGroup {
  type: "group";
  match: "all" | "any";
  conditions: FunnelCondition[];
}
export interface FunnelTrigger {
  match: "all" | "any";
  conditions: (FunnelCondition | FunnelConditionGroup)[];
}

/** An offer of a funnel step. Prices are minor units: `prices[currency]` first, else `price` in the order's currency. */
export interface FunnelOffer {
  name: string;
  description?: string;
  image?: string;
  productId?: string;
  price?: number;
  prices?: Record<string, number>;
  originalPrice?: number;
  originalPrices?: Record<string, number>;
  externalPageUrl?: string;
}
export interface FunnelVariant {
  /** Stable across versions: the key of the variant's counters and its offer id in sessions. */
  id: string;
  weight: number;
  offer: FunnelOffer;
  downsell?: FunnelOffer;
}
export interface FunnelStep {
  variants: FunnelVariant[];
}

/** Where a session's offer came from; set on the offers of sessions a funnel created. */
export interface FunnelOfferRef {
  funnelId: string;
  funnelVersion: number;
  stepIndex: number;
  variantId: string;
  downsell: boolean;
  /** The funnel's commission rate when the session started (null: the original order's). */
  commissionRate?: number | null;
}

export const funnels = pgTable(
  "funnels",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    name: text("name").notNull(),
    /** Lower runs first. */
    priority: integer("priority").notNull(),
    status: text("status").$type<"draft" | "live" | "paused">().notNull(),
    /** The version new sessions start with. */
    currentVersion: integer("current_version").notNull(),
    /** Impressions each variant needs before a winner is declared. */
    minSamplePerVariant: integer("min_sample_per_variant").notNull(),
    /** A fraction of each upsell charge for the original order's salesperson; null: the original order's rate. */
    commissionRate: doublePrecision("commission_rate"),
    createdAt: at("created_at").notNull(),
    updatedAt: at("updated_at").notNull(),
    deletedAt: at("deleted_at"),
  },
  (t) => [index("funnels_brand_status_idx").on(t.brandId, t.status)],
);

/** Trigger and steps, one row per version; a version is never changed once a session may use it. */
export const funnelVersions = pgTable(
  "funnel_versions",
  {
    funnelId: text("funnel_id")
      .notNull()
      .references(() => funnels.id),
    version: integer("version").notNull(),
    trigger: jsonb("trigger").$type<FunnelTrigger>().notNull(),
    steps: jsonb("steps").$type<FunnelStep[]>().notNull(),
    createdBy: text("created_by"),
    createdAt: at("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.funnelId, t.version] })],
);

/** The funnel session of an original order: at most one, so a repeated completion finds the same session. */
export const funnelEntries = pgTable("funnel_entries", {
  originalOrderRef: text("original_order_ref").primaryKey(),
  sessionId: text("session_id").notNull(),
  funnelId: text("funnel_id")
    .notNull()
    .references(() => funnels.id),
  funnelVersion: integer("funnel_version").notNull(),
  createdAt: at("created_at").notNull(),
});

/**
 * Funnel counters per UTC day, step and variant (step -1, variant '': the funnel's own sessions),
 * currency and shard, added to in the transaction of each impression, answer and refund.
 */
export const funnelDailyStats = pgTable(
  "funnel_daily_stats",
  {
    funnelId: text("funnel_id").notNull(),
    day: text("day").notNull(),
    stepIndex: smallint("step_index").notNull(),
    variantId: text("variant_id").notNull(),
    currency: text("currency").notNull(),
    /**
     * Test and live counted apart (CONTRACT §39): the mode of the sessions counted. Live rows use the
     * shards FUNNEL_STATS_SHARDS and up, so the key stays the one the previous release writes on
     * (expand only, docs/operations.md "Migrations") and one mode never adds into the other's row.
     */
    livemode: boolean("livemode").notNull().default(false),
    shard: smallint("shard").notNull(),
    sessions: bigint("sessions", { mode: "number" }).notNull().default(sql`0`),
    sessionsWithAccept: bigint("sessions_with_accept", { mode: "number" }).notNull().default(sql`0`),
    impressions: bigint("impressions", { mode: "number" }).notNull().default(sql`0`),
    accepts: bigint("accepts", { mode: "number" }).notNull().default(sql`0`),
    declines: bigint("declines", { mode: "number" }).notNull().default(sql`0`),
    downsellImpressions: bigint("downsell_impressions", { mode: "number" }).notNull().default(sql`0`),
    downsellAccepts: bigint("downsell_accepts", { mode: "number" }).notNull().default(sql`0`),
    revenueCents: cents("revenue_cents").notNull().default(sql`0`),
    refundedCents: cents("refunded_cents").notNull().default(sql`0`),
    updatedAt: at("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.funnelId, t.day, t.stepIndex, t.variantId, t.currency, t.shard] })],
);
