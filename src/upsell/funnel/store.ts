import { and, eq, isNull, lte, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/client.js";
import { funnelEntries, funnels, funnelVersions, orderLineItems, orders, upsellOfferResults, upsellSessions, type FunnelOfferRef, type StoredOffer } from "../../db/schema/index.js";

// The funnel runtime's queries (the buyer's path: entering a funnel, its counters; a funnel charge's
// commission is written through commissions/store.ts). Each takes a db handle (client or transaction). The administration of funnels
// (funnels/store.ts) writes the definitions these read.

export type FunnelRow = typeof funnels.$inferSelect;
export type FunnelVersionRow = typeof funnelVersions.$inferSelect;
export type FunnelWithVersion = FunnelRow & Pick<FunnelVersionRow, "trigger" | "steps">;

const withVersion = {
  id: funnels.id,
  brandId: funnels.brandId,
  name: funnels.name,
  priority: funnels.priority,
  status: funnels.status,
  currentVersion: funnels.currentVersion,
  minSamplePerVariant: funnels.minSamplePerVariant,
  commissionRate: funnels.commissionRate, createdAt: funnels.createdAt, updatedAt: funnels.updatedAt, deletedAt: funnels.deletedAt, trigger: funnelVersions.trigger, steps: funnelVersions.steps };

/** Funnels with their current version: a query to finish with a where (and an order). */
export function selectFunnelsWithVersion(db: Db) {
  return db
    .select(withVersion)
    .from(funnels)
    .innerJoin(funnelVersions, and(eq(funnelVersions.funnelId, funnels.id), eq(funnelVersions.version, funnels.currentVersion)));
}

/** A funnel of the brand (another brand's reads as missing), with its current version. */
export async function findFunnelOfBrand(db: Db, brandId: string, id: string, options: { lock?: boolean } = {}): Promise<FunnelWithVersion | null> {
  const query = selectFunnelsWithVersion(db).where(and(eq(funnels.id, id), eq(funnels.brandId, brandId), isNull(funnels.deletedAt)));
  const [row] = await (options.lock ? query.for("update", { of: funnels }) : query);
  return row ?? null;
}

/** The brand's live funnels with their current versions (the hosted flow's candidates). */
export async function liveFunnelsOfBrand(db: Db, brandId: string): Promise<FunnelWithVersion[]> {
  return selectFunnelsWithVersion(db).where(and(eq(funnels.brandId, brandId), eq(funnels.status, "live"), isNull(funnels.deletedAt)));
}

export async function lineItemsOf(db: Db, orderRef: string): Promise<{ id: string; name: string | null }[]> {
  return db.select({ id: orderLineItems.itemId, name: orderLineItems.name }).from(orderLineItems).where(eq(orderLineItems.orderRef, orderRef));
}

/** Whether an earlier checkout order of the brand carries this email (compared without case). */
export async function hasEarlierOrder(db: Db, order: { id: string; brandId: string; customerEmail: string; createdAt: Date }): Promise<boolean> {
  const [row] = await db
    .select({ id: orders.id })
    .from(orders)
    .where(
      and(
        eq(orders.brandId, order.brandId),
        eq(orders.kind, "checkout"),
        sql`lower(${orders.customerEmail}) = ${order.customerEmail.trim().toLowerCase()}`,
        lte(orders.createdAt, order.createdAt),
        ne(orders.id, order.id),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/** Claims the original order's funnel session; false when another request already did. */
export async function claimFunnelEntry(tx: Db, entry: typeof funnelEntries.$inferInsert): Promise<boolean> {
  const rows = await tx.insert(funnelEntries).values(entry).onConflictDoNothing().returning({ sessionId: funnelEntries.sessionId });
  return rows.length === 1;
}

/** The original order's funnel session, with its state. */
export async function findFunnelEntry(db: Db, originalOrderRef: string) {
  const [row] = await db
    .select({ sessionId: funnelEntries.sessionId, funnelId: funnelEntries.funnelId, status: upsellSessions.status, expiresAt: upsellSessions.expiresAt, totalOffers: upsellSessions.totalOffers })
    .from(funnelEntries)
    .innerJoin(upsellSessions, eq(upsellSessions.id, funnelEntries.sessionId))
    .where(eq(funnelEntries.originalOrderRef, originalOrderRef));
  return row ?? null;
}

// ---- counters (docs/funnels.md "Stats")

/** How many rows each (funnel, day, step, variant, currency) counter is spread over. */
export const FUNNEL_STATS_SHARDS = 8;

export interface FunnelStatsDelta {
  funnelId: string;
  stepIndex: number;
  variantId: string;
  sessions?: number;
  sessionsWithAccept?: number;
  impressions?: number;
  accepts?: number;
  declines?: number;
  downsellImpressions?: number;
  downsellAccepts?: number;
  revenueCents?: number;
  refundedCents?: number;
}

const COUNTERS = ["sessions", "sessions_with_accept", "impressions", "accepts", "declines", "downsell_impressions", "downsell_accepts", "revenue_cents", "refunded_cents"] as const;

/** Adds the deltas to a random shard of their counters, rows in key order so concurrent changes never deadlock. */
export async function bumpFunnelStats(tx: Db, day: string, currency: string, livemode: boolean, deltas: FunnelStatsDelta[], at: Date): Promise<void> {
  if (deltas.length === 0) return;
  // One row per key: an insert may not update the same row twice (a decline and its downsell shown share a variant).
  const merged = new Map<string, FunnelStatsDelta>();
  for (const d of deltas) {
    const key = `${d.funnelId}\u0000${d.stepIndex}\u0000${d.variantId}`;
    const into = merged.get(key);
    if (!into) {
      merged.set(key, { ...d });
      continue;
    }
    for (const name of ["sessions", "sessionsWithAccept", "impressions", "accepts", "declines", "downsellImpressions", "downsellAccepts", "revenueCents", "refundedCents"] as const) {
      into[name] = (into[name] ?? 0) + (d[name] ?? 0);
    }
  }
  const rows = [...merged.values()]
    .map((d) => ({
      funnel_id: d.funnelId,
      step_index: d.stepIndex,
      variant_id: d.variantId,
      sessions: d.sessions ?? 0,
      sessions_with_accept: d.sessionsWithAccept ?? 0,
      impressions: d.impressions ?? 0,
      accepts: d.accepts ?? 0,
      declines: d.declines ?? 0,
      downsell_impressions: d.downsellImpressions ?? 0,
      downsell_accepts: d.downsellAccepts ?? 0,
      revenue_cents: d.revenueCents ?? 0,
      refunded_cents: d.refundedCents ?? 0,
    }))
    .sort((a, b) => (a.funnel_id + a.step_index + a.variant_id < b.funnel_id + b.step_index + b.variant_id ? -1 : 1));
  // Live rows take the shards from FUNNEL_STATS_SHARDS up: the key has no mode (schema/funnels.ts).
  const shard = Math.floor(Math.random() * FUNNEL_STATS_SHARDS) + (livemode ? FUNNEL_STATS_SHARDS : 0);
  const columns = COUNTERS.join(", ");
  await tx.execute(sql`
    insert into funnel_daily_stats (funnel_id, day, step_index, variant_id, currency, livemode, shard, ${sql.raw(columns)}, updated_at)
    select s.funnel_id, ${day}, s.step_index, s.variant_id, ${currency}, ${livemode}, ${shard}, ${sql.raw(COUNTERS.map((c) => `s.${c}`).join(", "))}, ${at}
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as s(funnel_id text, step_index int2, variant_id text, ${sql.raw(COUNTERS.map((c) => `${c} int8`).join(", "))})
    on conflict (funnel_id, day, step_index, variant_id, currency, shard) do update set
      ${sql.raw(COUNTERS.map((c) => `${c} = funnel_daily_stats.${c} + excluded.${c}`).join(", "))}, updated_at = excluded.updated_at`);
}

/** The funnel offer an upsell order (orders.id) was the accept of, with the accept's time and currency. */
export async function funnelOfferOfUpsellOrder(db: Db, orderRef: string): Promise<{ ref: FunnelOfferRef; acceptedAt: Date; currency: string; livemode: boolean } | null> {
  const [row] = await db
    .select({ offerId: upsellOfferResults.offerId, createdAt: upsellOfferResults.createdAt, flow: upsellSessions.flow, currency: upsellSessions.currency, livemode: upsellSessions.livemode })
    .from(upsellOfferResults)
    .innerJoin(upsellSessions, eq(upsellSessions.id, upsellOfferResults.sessionId))
    .where(and(eq(upsellOfferResults.orderRef, orderRef), eq(upsellOfferResults.decision, "accepted")))
    .limit(1);
  const ref = row?.flow.find((offer: StoredOffer) => offer.id === row.offerId)?.funnel;
  return row && ref ? { ref, acceptedAt: row.createdAt, currency: row.currency, livemode: row.livemode } : null;
}
