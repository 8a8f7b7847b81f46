import { and, asc, eq, gte, isNull, lte, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { Db } from "../db/client.js";
import { funnelDailyStats, funnels, funnelVersions } from "../db/schema/index.js";
import { selectFunnelsWithVersion, type FunnelVersionRow, type FunnelWithVersion } from "../upsell/funnel/store.js";

// The administration of funnels: writing definitions and reading their stats. Each takes a db handle
// (client or transaction). Reading a funnel with its current version is the runtime's
// (upsell/funnel/store.ts), which the buyer's path uses too.

export async function listFunnelsOfBrand(db: Db, brandId: string): Promise<FunnelWithVersion[]> {
  return selectFunnelsWithVersion(db)
    .where(and(eq(funnels.brandId, brandId), isNull(funnels.deletedAt)))
    .orderBy(asc(funnels.priority), asc(funnels.createdAt), asc(funnels.id));
}

export async function insertFunnel(tx: Db, funnel: typeof funnels.$inferInsert, version: typeof funnelVersions.$inferInsert): Promise<void> {
  await tx.insert(funnels).values(funnel);
  await tx.insert(funnelVersions).values(version);
}

export async function updateFunnel(tx: Db, id: string, patch: Partial<typeof funnels.$inferInsert>): Promise<void> {
  await tx.update(funnels).set(patch).where(eq(funnels.id, id));
}

export async function insertFunnelVersion(tx: Db, version: typeof funnelVersions.$inferInsert): Promise<void> {
  await tx.insert(funnelVersions).values(version);
}

/** A draft's version changes in place: no session can have started with it. */
export async function replaceFunnelVersion(tx: Db, funnelId: string, version: number, patch: Pick<FunnelVersionRow, "trigger" | "steps">): Promise<void> {
  await tx.update(funnelVersions).set(patch).where(and(eq(funnelVersions.funnelId, funnelId), eq(funnelVersions.version, version)));
}

/** The funnel's counters summed over shards and the days from..to (inclusive), per step, variant and currency. */
export async function funnelStatsRows(db: Db, funnelId: string, from: string, to: string, livemode: boolean) {
  const sum = (column: AnyPgColumn) => sql<number>`coalesce(sum(${column}), 0)::float8`.mapWith(Number);
  return db
    .select({
      stepIndex: funnelDailyStats.stepIndex,
      variantId: funnelDailyStats.variantId,
      currency: funnelDailyStats.currency,
      sessions: sum(funnelDailyStats.sessions),
      sessionsWithAccept: sum(funnelDailyStats.sessionsWithAccept),
      impressions: sum(funnelDailyStats.impressions),
      accepts: sum(funnelDailyStats.accepts),
      declines: sum(funnelDailyStats.declines),
      downsellImpressions: sum(funnelDailyStats.downsellImpressions),
      downsellAccepts: sum(funnelDailyStats.downsellAccepts),
      revenueCents: sum(funnelDailyStats.revenueCents),
      refundedCents: sum(funnelDailyStats.refundedCents),
    })
    .from(funnelDailyStats)
    .where(and(eq(funnelDailyStats.funnelId, funnelId), eq(funnelDailyStats.livemode, livemode), gte(funnelDailyStats.day, from), lte(funnelDailyStats.day, to)))
    .groupBy(funnelDailyStats.stepIndex, funnelDailyStats.variantId, funnelDailyStats.currency);
}

