import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { routingRuleVersions } from "../../db/schema/index.js";
import type { RoutingRule } from "./route.js";

// A brand's current routing rules for the pay path (docs/orchestration.md "Routing rules"): the
// highest version of its mode, read in one statement on the table's primary key (brand, mode, version).

/** Providers a pay request may try when the brand saved no rules (cascade, issue 34 item 4). */
const DEFAULT_MAX_PROVIDERS = 2;

/** The current rules, cascade limit and version of a brand's mode; version 0 (no rules, the default limit) before the first save. */
export async function loadRouting(db: Db, brandId: string, livemode: boolean): Promise<{ rules: RoutingRule[]; maxProviders: number; version: number }> {
  const [row] = await db
    .select({ rules: routingRuleVersions.rules, maxProviders: routingRuleVersions.cascadeMaxProviders, version: routingRuleVersions.version })
    .from(routingRuleVersions)
    .where(and(eq(routingRuleVersions.brandId, brandId), eq(routingRuleVersions.livemode, livemode)))
    .orderBy(desc(routingRuleVersions.version))
    .limit(1);
  if (!row) return { rules: [], maxProviders: DEFAULT_MAX_PROVIDERS, version: 0 };
  // Checked by the back office's schema before it was stored (src/orchestration/schemas.ts).
  return { rules: row.rules as RoutingRule[], maxProviders: row.maxProviders, version: row.version };
}

/** The current rules of a brand's mode (none before the first save: the default rule alone). */
export async function loadRoutingRules(db: Db, brandId: string, livemode: boolean): Promise<RoutingRule[]> {
  return (await loadRouting(db, brandId, livemode)).rules;
}
