import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { brands, routingRuleVersions, users } from "../db/schema/index.js";

// The administration of routing rules: the versions of a brand's mode and writing a new one. Each
// takes a db handle (client or transaction). The pay path reads the current version with
// payments/routing/rules-store.ts.

/** Versions listed with the current one, newest first. */
export const VERSIONS_LISTED = 100;

const versionColumns = {
  version: routingRuleVersions.version,
  rules: routingRuleVersions.rules,
  maxProviders: routingRuleVersions.cascadeMaxProviders,
  createdBy: routingRuleVersions.createdBy,
  createdByName: users.name,
  createdAt: routingRuleVersions.createdAt,
};

const ofMode = (brandId: string, livemode: boolean) => and(eq(routingRuleVersions.brandId, brandId), eq(routingRuleVersions.livemode, livemode));

/** The newest versions of a brand's mode (without their rules), newest first. */
export async function listRoutingVersions(db: Db, brandId: string, livemode: boolean) {
  return db
    .select({ version: routingRuleVersions.version, createdBy: routingRuleVersions.createdBy, createdByName: users.name, createdAt: routingRuleVersions.createdAt })
    .from(routingRuleVersions)
    .leftJoin(users, eq(users.id, routingRuleVersions.createdBy))
    .where(ofMode(brandId, livemode))
    .orderBy(desc(routingRuleVersions.version))
    .limit(VERSIONS_LISTED);
}

/** One version of a brand's mode, with its rules. */
export async function findRoutingVersion(db: Db, brandId: string, livemode: boolean, version: number) {
  const [row] = await db
    .select(versionColumns)
    .from(routingRuleVersions)
    .leftJoin(users, eq(users.id, routingRuleVersions.createdBy))
    .where(and(ofMode(brandId, livemode), eq(routingRuleVersions.version, version)))
    .limit(1);
  return row;
}

/**
 * The next version number of a brand's mode, with the brand's row locked until the transaction ends,
 * so two saves at once number their versions one after the other instead of colliding.
 */
export async function lockNextRoutingVersion(tx: Db, brandId: string, livemode: boolean): Promise<{ next: number; maxProviders: number | null }> {
  await tx.select({ id: brands.id }).from(brands).where(eq(brands.id, brandId)).for("update");
  const [row] = await tx
    .select({ version: routingRuleVersions.version, maxProviders: routingRuleVersions.cascadeMaxProviders })
    .from(routingRuleVersions)
    .where(ofMode(brandId, livemode))
    .orderBy(desc(routingRuleVersions.version))
    .limit(1);
  return { next: (row?.version ?? 0) + 1, maxProviders: row?.maxProviders ?? null };
}

export async function insertRoutingVersion(tx: Db, row: typeof routingRuleVersions.$inferInsert): Promise<void> {
  await tx.insert(routingRuleVersions).values(row);
}

