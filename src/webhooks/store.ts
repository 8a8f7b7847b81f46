import { and, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema/index.js";
import { claimDue } from "../jobs/lease.js";
import type { BusinessTally } from "../metrics/metrics.js";

/** What a send needs of a delivery (the claim returns whole rows; the test and resend operations build one). */
export type ClaimedRow = Pick<typeof webhookDeliveries.$inferSelect, "id" | "eventId" | "target" | "endpointId" | "brandId" | "eventType" | "url" | "body" | "attempts">;
export type EndpointRow = Pick<typeof webhookEndpoints.$inferSelect, "id" | "organizationId" | "brandId" | "sealedSecret" | "headers" | "enabled" | "deletedAt" | "failingSince">;
export type NewAttempt = typeof webhookAttempts.$inferInsert;
/** A delivery's state after an attempt. */
export type DeliveryOutcome = Pick<typeof webhookDeliveries.$inferSelect, "id" | "status" | "nextAttemptAt" | "lastStatusCode" | "lastError" | "completedAt">;

const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/**
 * Each undispatched outbox event becomes one delivery per enabled endpoint of its brand and its mode
 * (CONTRACT §39: a test endpoint never hears of a live event, nor the reverse) subscribed to its type
 * (or `*`), plus one to the token's webhookUrl (CONTRACT §29: its checkout's own, whatever the mode);
 * the event is marked dispatched.
 * One statement: the event rows stay locked (SKIP LOCKED for other processes) until it commits.
 * Returns how many events it fanned out, and the business events among them summed for /metrics.
 */
export async function fanOutEvents(db: Db, now: number, limit: number): Promise<{ events: number; business: BusinessTally[] }> {
  const at = new Date(now);
  const result = await db.execute(sql`
    with picked as (
      select id, brand_id, type, payload, webhook_url, livemode, created_at from outbox_events
      where dispatched_at is null order by created_at limit ${limit} for update skip locked
    ), marked as (
      update outbox_events o set dispatched_at = ${at} from picked where o.id = picked.id returning o.id
    ), bodies as (
      select p.id, p.brand_id, p.type, p.webhook_url, p.livemode,
        json_build_object('id', p.id, 'type', p.type, 'timestamp', to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'data', p.payload)::text as body
      from picked p
    ), to_endpoints as (
      insert into webhook_deliveries (id, event_id, target, endpoint_id, brand_id, event_type, url, body, status, attempts, next_attempt_at, created_at, livemode)
      select 'msg_' || replace(gen_random_uuid()::text, '-', ''), b.id, e.id, e.id, b.brand_id, b.type, e.url, b.body, 'pending', 0, ${at}, ${at}, b.livemode
      from bodies b join webhook_endpoints e on e.brand_id = b.brand_id and e.livemode = b.livemode and e.enabled and e.deleted_at is null
        and (e.events @> '["*"]'::jsonb or e.events @> jsonb_build_array(b.type))
      on conflict do nothing returning 1
    ), to_token as (
      insert into webhook_deliveries (id, event_id, target, endpoint_id, brand_id, event_type, url, body, status, attempts, next_attempt_at, created_at, livemode)
      select 'msg_' || replace(gen_random_uuid()::text, '-', ''), b.id, 'token', null, b.brand_id, b.type, b.webhook_url, b.body, 'pending', 0, ${at}, ${at}, b.livemode
      from bodies b where b.webhook_url is not null
      on conflict do nothing returning 1
    ), business as (
      select p.type, coalesce(p.payload->>'provider', '') as provider, coalesce(p.payload->>'currency', '') as currency,
        coalesce(p.payload->>'livemode', 'unknown') as livemode, count(*)::int as count, coalesce(sum((p.payload->>'amount')::bigint), 0) as amount
      from picked p where p.type in ('order.confirmed', 'upsell.accepted', 'payment.failed', 'refund.succeeded')
      group by 1, 2, 3, 4
    )
    select (select count(*) from marked)::int as events, (select count(*) from to_endpoints)::int as a, (select count(*) from to_token)::int as b,
      (select coalesce(json_agg(business), '[]'::json) from business) as business`);
  const row = rowsOf<{ events: number; business: BusinessTally[] | string }>(result)[0];
  // Counted here, where each event is dispatched exactly once across instances (business counters in /metrics).
  const business = typeof row?.business === "string" ? (JSON.parse(row.business) as BusinessTally[]) : (row?.business ?? []);
  return { events: row?.events ?? 0, business: business.map((t) => ({ ...t, amount: Number(t.amount) })) };
}

/** Claims due deliveries (attempts + 1 and the lease, committed before any send). */
export function claimDueDeliveries(db: Db, input: { now: number; leaseMs: number; limit: number }): Promise<ClaimedRow[]> {
  return claimDue(db, webhookDeliveries, input);
}

export async function endpointsByIds(db: Db, ids: string[]): Promise<Map<string, EndpointRow>> {
  const endpoints = new Map<string, EndpointRow>();
  if (ids.length === 0) return endpoints;
  const rows = await db
    .select({
      id: webhookEndpoints.id,
      organizationId: webhookEndpoints.organizationId,
      brandId: webhookEndpoints.brandId,
      sealedSecret: webhookEndpoints.sealedSecret,
      headers: webhookEndpoints.headers,
      enabled: webhookEndpoints.enabled,
      deletedAt: webhookEndpoints.deletedAt,
      failingSince: webhookEndpoints.failingSince,
    })
    .from(webhookEndpoints)
    .where(inArray(webhookEndpoints.id, ids));
  for (const row of rows) endpoints.set(row.id, row);
  return endpoints;
}

/** Gives claims back (sends cut short by shutdown are no attempt): attempts - 1, due now. */
export async function releaseClaims(db: Db, ids: string[], now: number): Promise<void> {
  await db
    .update(webhookDeliveries)
    .set({ attempts: sql`${webhookDeliveries.attempts} - 1`, nextAttemptAt: new Date(now) })
    .where(and(inArray(webhookDeliveries.id, ids), eq(webhookDeliveries.status, "pending")));
}

/** The attempt log and every delivery's new state, in the caller's transaction. */
export async function recordAttempts(tx: Db, attempts: NewAttempt[], outcomes: DeliveryOutcome[]): Promise<void> {
  await tx.insert(webhookAttempts).values(attempts);
  // One statement for the whole batch (a round sends up to 200).
  await tx.execute(sql`
    update webhook_deliveries d set status = v.status, next_attempt_at = v.next_attempt_at, last_status_code = v.last_status_code,
      last_error = v.last_error, completed_at = v.completed_at
    from jsonb_to_recordset(${JSON.stringify(outcomes.map(wireOutcome))}::jsonb)
      as v(id text, status text, next_attempt_at timestamptz, last_status_code int, last_error text, completed_at timestamptz)
    where d.id = v.id`);
}

const wireOutcome = (o: DeliveryOutcome) => ({
  id: o.id,
  status: o.status,
  next_attempt_at: o.nextAttemptAt.toISOString(),
  last_status_code: o.lastStatusCode,
  last_error: o.lastError,
  completed_at: o.completedAt?.toISOString() ?? null,
});

/** Endpoint health: a success clears `failing_since`; a failure sets it unless already set. */
export async function markEndpointsHealth(tx: Db, { succeeded, failed, now }: { succeeded: string[]; failed: string[]; now: number }): Promise<void> {
  if (succeeded.length > 0) {
    await tx.update(webhookEndpoints).set({ failingSince: null }).where(and(inArray(webhookEndpoints.id, succeeded), isNotNull(webhookEndpoints.failingSince)));
  }
  if (failed.length > 0) {
    await tx.update(webhookEndpoints).set({ failingSince: new Date(now) }).where(and(inArray(webhookEndpoints.id, failed), isNull(webhookEndpoints.failingSince)));
  }
}

/** Disables an enabled endpoint; false when it already was (another process got there first). */
export async function disableEnabledEndpoint(tx: Db, id: string, reason: "gone" | "failing"): Promise<boolean> {
  const changed = await tx
    .update(webhookEndpoints)
    .set({ enabled: false, disabledReason: reason })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.enabled, true)))
    .returning({ id: webhookEndpoints.id });
  return changed.length > 0;
}

/**
 * Housekeeping: deletes up to `limit` deliveries that succeeded before `cutoff`, with their attempts.
 * Failed deliveries are kept (they can be resent); pending ones are work. Returns how many went.
 */
export async function pruneDeliveredDeliveries(tx: Db, cutoff: number, limit: number): Promise<number> {
  const result = await tx.execute(sql`
    with gone as (
      delete from webhook_deliveries where id in (
        select id from webhook_deliveries where status = 'succeeded' and completed_at < ${new Date(cutoff)} limit ${limit})
      returning id
    ), attempts as (
      delete from webhook_attempts where delivery_id in (select id from gone) returning 1
    )
    select (select count(*) from gone)::int as deleted, (select count(*) from attempts)::int as attempts`);
  return rowsOf<{ deleted: number }>(result)[0]?.deleted ?? 0;
}

/**
 * Housekeeping: deletes up to `limit` outbox events made before `cutoff` (the events API keeps them 30
 * days: EVENT_RETENTION_DAYS) once they are fanned out (their deliveries carry the body) and their
 * receipt is handled.
 */
export async function pruneDispatchedEvents(tx: Db, cutoff: number, limit: number): Promise<number> {
  const result = await tx.execute(sql`
    with gone as (
      delete from outbox_events where id in (
        select id from outbox_events where created_at < ${new Date(cutoff)} and dispatched_at is not null
          and (receipt_at is not null or type not in ('order.confirmed', 'upsell.accepted', 'refund.succeeded')) limit ${limit})
      returning 1
    )
    select count(*)::int as deleted from gone`);
  return rowsOf<{ deleted: number }>(result)[0]?.deleted ?? 0;
}
