import type { Db } from "../../db/client.js";
import { hotStatement, runHot } from "../../db/hot.js";
import type { RoutingRule } from "./route.js";

// A brand's current routing rules for the pay path (docs/orchestration.md "Routing rules"): the
// highest version of its mode (table routing_rule_versions, src/db/schema/routing.ts), read in one
// statement on the table's primary key (brand, mode, version). A hot statement (src/db/hot.ts): every
// card payment reads it, so it is prepared once per connection and its plan is checked by
// test/db/hot-plans.test.ts.

/** Providers a pay request may try when the brand saved no rules (cascade, issue 34 item 4). */
const DEFAULT_MAX_PROVIDERS = 2;

const CURRENT_ROUTING = hotStatement(
  "routing_current",
  `select rules, cascade_max_providers as "maxProviders", version from routing_rule_versions
   where brand_id = $1 and livemode = $2 order by version desc limit 1`,
);

export interface CurrentRouting {
  rules: RoutingRule[];
  maxProviders: number;
  version: number;
}

/**
 * The pay path's read of the current routing, as a scalar subquery another hot statement embeds (the
 * pay's opening statement, payments/cascade/store.ts: no round trip of its own). `brand` and
 * `livemode` are SQL expressions; the row comes back as a json object for routingOf.
 */
export const currentRoutingSubquery = (brand: string, livemode: string) =>
  `(select json_build_object('rules', rv.rules, 'maxProviders', rv.cascade_max_providers, 'version', rv.version) from routing_rule_versions rv
     where rv.brand_id = ${brand} and rv.livemode = ${livemode} order by rv.version desc limit 1)`;

/** A routing_rule_versions row as read (null: none saved, the default rules and limit). */
export function routingOf(row: { rules: unknown; maxProviders: number | string; version: number | string } | null | undefined): CurrentRouting {
  if (!row) return { rules: [], maxProviders: DEFAULT_MAX_PROVIDERS, version: 0 };
  // Checked by the back office's schema before it was stored (src/orchestration/routing.ts).
  const rules = typeof row.rules === "string" ? (JSON.parse(row.rules) as RoutingRule[]) : (row.rules as RoutingRule[]);
  return { rules, maxProviders: Number(row.maxProviders), version: Number(row.version) };
}

/** The current rules, cascade limit and version of a brand's mode; version 0 (no rules, the default limit) before the first save. */
export async function loadRouting(db: Db, brandId: string, livemode: boolean): Promise<CurrentRouting> {
  const [row] = await runHot<{ rules: unknown; maxProviders: number; version: number }>(db, CURRENT_ROUTING, [brandId, livemode]);
  return routingOf(row);
}

/** The current rules of a brand's mode (none before the first save: the default rule alone). */
export async function loadRoutingRules(db: Db, brandId: string, livemode: boolean): Promise<RoutingRule[]> {
  return (await loadRouting(db, brandId, livemode)).rules;
}
