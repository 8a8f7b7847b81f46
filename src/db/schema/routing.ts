import { boolean, integer, jsonb, pgTable, primaryKey, smallint, text } from "drizzle-orm/pg-core";
import { at } from "./columns.js";
import { brands } from "./tenancy.js";

// Routing rules (issue 34 item 2, docs/orchestration.md "Routing rules"): a brand's ordered list per
// mode, versioned like funnels. Every save is a new row; the current version is the highest one.
// The rules' JSON shape is RoutingRule of src/payments/routing/route.ts, checked by the TypeBox
// schema of src/orchestration/schemas.ts before it is stored.

export const routingRuleVersions = pgTable(
  "routing_rule_versions",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id),
    /** Live (real money) and test rules are apart (CONTRACT §39). */
    livemode: boolean("livemode").notNull(),
    /** 1, 2, … per brand and mode; the highest is current. */
    version: integer("version").notNull(),
    /** Ordered: the first rule whose conditions hold decides. */
    rules: jsonb("rules").$type<unknown[]>().notNull(),
    /** At most this many providers are tried for one pay request (cascade), 1–4. */
    cascadeMaxProviders: smallint("cascade_max_providers").notNull().default(2),
    createdBy: text("created_by"),
    createdAt: at("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.livemode, t.version] })],
);
