import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { DeclineCounts } from "../payments/declines.js";
import type { Db } from "../db/client.js";
import { hotStatement, rowsAsJson, runHot, selectColumns, insertRowsSql } from "../db/hot.js";
import { checkouts, orderLineItems, orders, outboxEvents, upsellOfferResults, upsellOfferStats, upsellSessions } from "../db/schema/index.js";

// The upsell feature's queries. Each takes a db handle (client or transaction).

export type UpsellSessionRow = typeof upsellSessions.$inferSelect;
export type OfferResultRow = typeof upsellOfferResults.$inferSelect;

/**
 * The original checkout order an upsell session starts from (create-session, a funnel's entry), with
 * its checkout's successUrl and webhookUrl: the newest checkout order carrying `orderId` that also
 * matches the filters given. With a token, only the order that token was issued for matches (CONTRACT
 * §8); with a brand, only that brand's orders (an API key sees only its brand's, §34); with a
 * transaction id, only the order it paid (a completion's).
 */
const ORIGINAL_ORDER = hotStatement(
  "upsell_original_order",
  `select o.id as "id", o.brand_id as "brandId", o.order_id as "orderId", o.checkout_id as "checkoutId", o.provider as "provider",
     o.currency as "currency", o.amount_cents as "amountCents", o.payment_method_token as "paymentMethodToken",
     o.customer_name as "customerName", o.customer_email as "customerEmail", o.billing_address as "billingAddress",
     o.shipping_address as "shippingAddress", o.created_at as "createdAt", o.paid_in_demo as "paidInDemo", o.livemode as "livemode",
     c.success_url as "successUrl", c.webhook_url as "webhookUrl"
   from orders o left join checkouts c on c.id = o.checkout_id
   where o.order_id = $1 and o.kind = 'checkout'
     and ($2::text is null or o.payment_method_token = $2) and ($3::text is null or o.brand_id = $3) and ($4::text is null or o.transaction_id = $4)
   order by o.created_at desc
   limit 1`,
);

type OrderRow = typeof orders.$inferSelect;
export type OriginalOrder = Pick<
  OrderRow,
  "id" | "brandId" | "orderId" | "checkoutId" | "provider" | "currency" | "amountCents" | "paymentMethodToken" | "customerName" | "customerEmail" | "billingAddress" | "shippingAddress" | "createdAt" | "paidInDemo" | "livemode"
> & { successUrl: string | null; webhookUrl: string | null };

export async function originalOrderOf(db: Db, where: { orderId: string; paymentMethodToken?: string; brandId?: string; transactionId?: string }): Promise<OriginalOrder | null> {
  const [row] = await runHot<OriginalOrder>(db, ORIGINAL_ORDER, [where.orderId, where.paymentMethodToken ?? null, where.brandId ?? null, where.transactionId ?? null]);
  return row ?? null;
}

/** The amount and currency of an upsell session's original order (its row id: `originalOrderRef`). */
export async function findOrderAmount(db: Db, orderRef: string): Promise<{ amount: number; currency: string } | null> {
  const [row] = await db.select({ amount: orders.amountCents, currency: orders.currency }).from(orders).where(eq(orders.id, orderRef));
  return row ?? null;
}

export async function findSession(db: Db, id: string): Promise<UpsellSessionRow | null> {
  const [row] = await db.select().from(upsellSessions).where(eq(upsellSessions.id, id));
  return row ?? null;
}

/** How many counter rows each offer's counters are spread over (see the `shard` column). */
export const OFFER_STATS_SHARDS = 16;

const summed = (column: AnyPgColumn) => sql<number>`sum(${column})::float8`.mapWith(Number);

/** A brand's take-rate counters of one mode per offer and currency (the shards summed), most shown first. */
export async function offerStatsOfBrand(db: Db, brandId: string, options: { livemode: boolean; offerId?: string; limit?: number }) {
  const shown = summed(upsellOfferStats.shown);
  return db
    .select({
      offerId: upsellOfferStats.offerId,
      currency: upsellOfferStats.currency,
      shown,
      accepted: summed(upsellOfferStats.accepted),
      declined: summed(upsellOfferStats.declined),
      revenueCents: summed(upsellOfferStats.revenueCents),
    })
    .from(upsellOfferStats)
    .where(and(eq(upsellOfferStats.brandId, brandId), eq(upsellOfferStats.livemode, options.livemode), options.offerId === undefined ? undefined : eq(upsellOfferStats.offerId, options.offerId)))
    .groupBy(upsellOfferStats.offerId, upsellOfferStats.currency)
    .orderBy(desc(shown), asc(upsellOfferStats.offerId), asc(upsellOfferStats.currency))
    .limit(options.limit ?? 200);
}

/** How many of the brand's latest sessions name offers for the stats (a bounded read: counters, not sessions, are the stats). */
const NAMES_FROM_SESSIONS = 1000;

/**
 * Names of the brand's offer ids for its stats (issue 36: names, not `var_…` ids): a funnel variant's
 * offer name from the brand's funnels (their latest version), any other offer's from the latest
 * sessions that showed it (a downsell of a funnel variant too). An id found nowhere is left out.
 */
export async function offerNamesOfBrand(db: Db, brandId: string, offerIds: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (offerIds.length === 0) return names;
  const ids = sql`array[${sql.join(offerIds.map((id) => sql`${id}`), sql`, `)}]::text[]`;
  const result = await db.execute(sql`
    select id, name, rank from (
      select distinct on (v->>'id') v->>'id' as id, v->'offer'->>'name' as name, 0 as rank
        from funnel_versions fv join funnels f on f.id = fv.funnel_id, jsonb_array_elements(fv.steps) s, jsonb_array_elements(s->'variants') v
       where f.brand_id = ${brandId} and v->>'id' = any(${ids})
       order by v->>'id', fv.version desc
    ) funnel_names
    union all
    select id, name, rank from (
      select distinct on (o->>'id') o->>'id' as id, o->>'name' as name, 1 as rank
        from (select flow, created_at from upsell_sessions where brand_id = ${brandId} order by created_at desc limit ${NAMES_FROM_SESSIONS}) recent, jsonb_array_elements(recent.flow) o
       where o->>'id' = any(${ids})
       order by o->>'id', recent.created_at desc
    ) session_names
    order by rank`);
  // Funnel names first: a variant's name is its funnel's, whatever a session once showed.
  for (const row of (result as unknown as { rows: { id: string; name: string | null }[] }).rows) if (row.name && !names.has(row.id)) names.set(row.id, row.name);
  return names;
}

// Hot statements of the answers (accept, decline) and create-session: plain SQL, one round trip each
// where Drizzle sent one per table (src/db/hot.ts).

/**
 * The take-rate counters of a change: `$brand`, `$currency`, `$livemode` (the session's: test and
 * live are counted apart, CONTRACT §39: live rows take the shards from OFFER_STATS_SHARDS up), `$at`
 * and the JSON rows `$rows`, each
 * added to a random shard of its offer's counters (rows still locked in offer order: no deadlock).
 */
const bumpStatsSql = (brand: string, currency: string, livemode: string, rows: string, at: string, when = "true") =>
  `insert into upsell_offer_stats (brand_id, offer_id, currency, livemode, shard, shown, accepted, declined, revenue_cents, updated_at)
   select ${brand}, s.offer_id, ${currency}, ${livemode}::boolean,
     (floor(random() * ${OFFER_STATS_SHARDS}) + case when ${livemode}::boolean then ${OFFER_STATS_SHARDS} else 0 end)::int2,
     s.shown, s.accepted, s.declined, s.revenue_cents, ${at}
   from jsonb_to_recordset(${rows}::jsonb) as s(offer_id text, shown int8, accepted int8, declined int8, revenue_cents int8)
   where ${when}
   on conflict (brand_id, offer_id, currency, shard) do update set
     shown = upsell_offer_stats.shown + excluded.shown, accepted = upsell_offer_stats.accepted + excluded.accepted,
     declined = upsell_offer_stats.declined + excluded.declined, revenue_cents = upsell_offer_stats.revenue_cents + excluded.revenue_cents,
     updated_at = excluded.updated_at`;

export interface StatsDelta {
  offerId: string;
  shown?: number;
  accepted?: number;
  declined?: number;
  revenueCents?: number;
}

/** Rows for bumpStatsSql, ordered by offer id so concurrent changes lock the hot rows in one order. */
function statsJson(deltas: StatsDelta[]): string {
  return JSON.stringify(
    [...deltas]
      .sort((a, b) => (a.offerId < b.offerId ? -1 : a.offerId > b.offerId ? 1 : 0))
      .map((d) => ({ offer_id: d.offerId, shown: d.shown ?? 0, accepted: d.accepted ?? 0, declined: d.declined ?? 0, revenue_cents: d.revenueCents ?? 0 })),
  );
}

const CREATE_SESSION = hotStatement(
  "upsell_create_session",
  `with saved_session as (
     ${insertRowsSql(upsellSessions, "$1")}
   )
   ${bumpStatsSql("$2", "$3", "$6", "$4", "$5")}`,
);

/** The new session and its first offer counted as shown: one statement. */
export async function saveNewSession(db: Db, session: typeof upsellSessions.$inferInsert, firstOfferId: string): Promise<void> {
  await runHot(db, CREATE_SESSION, [rowsAsJson(upsellSessions, [session]), session.brandId, session.currency, statsJson([{ offerId: firstOfferId, shown: 1 }]), session.createdAt, session.livemode ?? false]);
}

// With the decline counts of the session's order and of the client address (CONTRACT §21): accept's
// first read and its decline-limit check in one round trip.
const FIND_SESSION_FOR_ANSWER = hotStatement(
  "upsell_find_session_for_answer",
  `select ${selectColumns(upsellSessions, "s")},
     r.decision as "priorDecision", r.result as "priorResult",
     o.customer_name as "originalCustomerName", o.customer as "originalCustomer",
     o.billing_address as "originalBillingAddress", o.shipping_address as "originalShippingAddress", o.paid_in_demo as "originalPaidInDemo",
     o.metadata as "originalMetadata",
     (select count(*) from payment_declines where order_id = s.order_id and created_at > $4)::int as "declinesByOrder",
     (select count(distinct coalesce(card_fingerprint, id)) from payment_declines where client_address = $3 and created_at > $4)::int as "declinesByAddress"
   from upsell_sessions s
   left join upsell_offer_results r on r.session_id = s.id and r.offer_id = $2
   left join orders o on o.id = s.original_order_ref
   where s.id = $1`,
);
// The same without the decline counts: an answer's read before its save, and again after a conflict.
// The session and its offer's row come from one snapshot.
const READ_SESSION_FOR_ANSWER = hotStatement(
  "upsell_read_session_for_answer",
  `select ${selectColumns(upsellSessions, "s")},
     r.decision as "priorDecision", r.result as "priorResult",
     o.customer_name as "originalCustomerName", o.customer as "originalCustomer",
     o.billing_address as "originalBillingAddress", o.shipping_address as "originalShippingAddress", o.paid_in_demo as "originalPaidInDemo",
     o.metadata as "originalMetadata"
   from upsell_sessions s
   left join upsell_offer_results r on r.session_id = s.id and r.offer_id = $2
   left join orders o on o.id = s.original_order_ref
   where s.id = $1`,
);
const PRIOR_ANSWER = hotStatement(
  "upsell_prior_answer",
  `select decision as "priorDecision", result as "priorResult", created_at as "priorAt" from upsell_offer_results where session_id = $1 and offer_id = $2`,
);

export interface SessionForAnswer {
  session: UpsellSessionRow;
  /** The answer already given to this offer, if any. */
  prior: { decision: OfferResultRow["decision"]; result: Record<string, unknown> | null } | null;
  /** The original order's customer data and its checkout's metadata, copied onto each upsell order. */
  original: {
    customerName: string | null;
    customer: Record<string, unknown> | null;
    billingAddress: Record<string, unknown> | null;
    shippingAddress: Record<string, unknown> | null;
    paidInDemo: boolean | null;
    metadata: Record<string, string> | null;
  };
}

type PriorAnswerRow = { priorDecision: OfferResultRow["decision"]; priorResult: Record<string, unknown> | null; priorAt: Date };

type SessionForAnswerRow = UpsellSessionRow & {
  priorDecision: OfferResultRow["decision"] | null;
  priorResult: Record<string, unknown> | null;
  originalCustomerName: string | null;
  originalCustomer: Record<string, unknown> | null;
  originalBillingAddress: Record<string, unknown> | null;
  originalShippingAddress: Record<string, unknown> | null;
  originalPaidInDemo: boolean | null;
  originalMetadata: Record<string, string> | null;
};

function toSessionForAnswer(row: SessionForAnswerRow | undefined): SessionForAnswer | null {
  if (!row) return null;
  const { priorDecision, priorResult, originalCustomerName, originalCustomer, originalBillingAddress, originalShippingAddress, originalPaidInDemo, originalMetadata, ...session } = row;
  return {
    session,
    prior: priorDecision ? { decision: priorDecision, result: priorResult } : null,
    original: { customerName: originalCustomerName, customer: originalCustomer, billingAddress: originalBillingAddress, shippingAddress: originalShippingAddress, paidInDemo: originalPaidInDemo, metadata: originalMetadata },
  };
}

/**
 * The session, the answer already given to `offerId` and the original order's customer data, and the
 * declines counted since `declines.since` for the session's order and for `declines.clientAddress`.
 */
export async function findSessionForAnswer(
  db: Db,
  sessionId: string,
  offerId: string,
  declines: { clientAddress: string | null; since: Date },
): Promise<{ found: SessionForAnswer | null; declines: DeclineCounts }> {
  const [row] = await runHot<SessionForAnswerRow & { declinesByOrder: number; declinesByAddress: number }>(db, FIND_SESSION_FOR_ANSWER, [
    sessionId,
    offerId,
    declines.clientAddress,
    declines.since,
  ]);
  if (!row) return { found: null, declines: { byOrder: 0, byAddress: 0 } };
  const { declinesByOrder, declinesByAddress, ...rest } = row;
  return { found: toSessionForAnswer(rest), declines: { byOrder: declinesByOrder, byAddress: declinesByAddress } };
}

/**
 * The session, the answer already given to `offerId` and the original order's customer data, as they
 * are now (no lock: saveAnswer writes only over the session as read here). A `pending` or `refused`
 * row is no answer.
 */
export async function readSessionForAnswer(db: Db, sessionId: string, offerId: string): Promise<SessionForAnswer | null> {
  const [row] = await runHot<SessionForAnswerRow>(db, READ_SESSION_FOR_ANSWER, [sessionId, offerId]);
  return toSessionForAnswer(row);
}

/** A charge's hold on an offer's row: its provider idempotency key and when it was claimed. */
export interface OfferClaim {
  chargeKey: string;
  claimedAt: Date;
}

// One winner across processes: a new row, a `refused` one (the offer is still open), or a `pending` one
// whose claim is older than `$5` (its request died) and of the same kind of charge, whose key is kept.
const CLAIM_OFFER = hotStatement(
  "upsell_claim_offer",
  `insert into upsell_offer_results as r (session_id, offer_id, decision, charge_key, created_at)
   values ($1, $2, 'pending', $3, $4)
   on conflict (session_id, offer_id) do update set decision = 'pending', created_at = excluded.created_at,
     charge_key = case when r.decision = 'pending' then r.charge_key else excluded.charge_key end
   where r.decision = 'refused'
      or (r.decision = 'pending' and r.created_at < $5 and split_part(r.charge_key, ':', 1) = split_part(excluded.charge_key, ':', 1))
   returning r.charge_key as "chargeKey", r.created_at as "claimedAt"`,
);

/**
 * Claims the offer's row for a charge with `chargeKey` (CONTRACT §7), before the provider is called,
 * in a statement of its own: the claim outlives it, so the call holds no connection. Null when another
 * request holds the row or the offer is answered. A claim taken over keeps its key (returned).
 */
export async function claimOffer(db: Db, sessionId: string, offerId: string, chargeKey: string, now: Date, abandonedBefore: Date): Promise<OfferClaim | null> {
  const [row] = await runHot<OfferClaim>(db, CLAIM_OFFER, [sessionId, offerId, chargeKey, now, abandonedBefore]);
  return row ?? null;
}

/** The offer's row as it is now: its decision, the answer to replay, and when it was written or claimed. */
export async function findOfferResult(db: Db, sessionId: string, offerId: string): Promise<{ decision: OfferResultRow["decision"]; result: Record<string, unknown> | null; createdAt: Date } | null> {
  const [row] = await runHot<PriorAnswerRow>(db, PRIOR_ANSWER, [sessionId, offerId]);
  return row ? { decision: row.priorDecision, result: row.priorResult, createdAt: row.priorAt } : null;
}

const whereClaim = (sessionId: string, offerId: string, claim: OfferClaim) =>
  sql`session_id = ${sessionId} and offer_id = ${offerId} and decision = 'pending' and charge_key = ${claim.chargeKey} and created_at = ${claim.claimedAt}`;

/**
 * A refused charge leaves the offer unanswered: the claim becomes `refused`, which is no answer (a
 * later accept or decline overwrites the row) but is what lets the buyer pay that offer with another
 * card (pay-offer-by-card.ts). False when the claim is no longer this request's (taken over).
 */
export async function markOfferRefused(tx: Db, sessionId: string, offerId: string, claim: OfferClaim): Promise<boolean> {
  const rows = await tx.execute(sql`update upsell_offer_results set decision = 'refused' where ${whereClaim(sessionId, offerId, claim)} returning 1`);
  return (rows as unknown as { rows: unknown[] }).rows.length === 1;
}

/**
 * Lets go of a claim whose charge ended without a known outcome (a provider failure): the next charge
 * of the same kind takes it over at once and sends the same key, so a provider that did charge
 * answers that charge again.
 */
export async function abandonOfferClaim(db: Db, sessionId: string, offerId: string, claim: OfferClaim): Promise<void> {
  await db.execute(sql`update upsell_offer_results set created_at = ${new Date(0)} where ${whereClaim(sessionId, offerId, claim)}`);
}

// Optimistic on the session (issue 20, docs/performance.md): the answer was decided on the session as
// read ($18-$20: its answers and total, which every answer changes and no other write does), and is
// written only over that. `current_session` locks the session row if it is still so: FOR UPDATE re-checks the
// newest version of the row, waiting for a concurrent answer to commit. Then the answer row, only over
// what this answer may replace: the caller's own claim ($15, $16) for a charge; for a decline, no claim
// ($15 null), a `refused` row or a claim older than $17 (its request died), never a charge in progress.
// Everything else is written only with it; the session row is this statement's until it ends.
const CURRENT = "exists (select 1 from current_session)";
const SAVED = "exists (select 1 from saved_result)";
const SAVE_ANSWER = hotStatement(
  "upsell_save_answer",
  `with current_session as (
     select 1 from upsell_sessions
     where id = $5 and accepted_offers = $18::jsonb and declined_offers = $19::jsonb and total_upsell_cents = $20
     for update
   ), saved_result as (
     ${insertRowsSql(upsellOfferResults, "$3", "r")} where ${CURRENT}
     on conflict (session_id, offer_id) do update set decision = excluded.decision, transaction_id = excluded.transaction_id,
       amount_cents = excluded.amount_cents, order_ref = excluded.order_ref, result = excluded.result, charge_key = excluded.charge_key,
       created_at = excluded.created_at
     where (r.decision = 'pending' and r.charge_key = $15 and r.created_at = $16)
        or ($15::text is null and (r.decision = 'refused' or (r.decision = 'pending' and r.created_at < $17)))
     returning 1
   ), saved_order as (
     ${insertRowsSql(orders, "$1")} where ${SAVED}
   ), saved_items as (
     ${insertRowsSql(orderLineItems, "$2")} where ${SAVED}
   ), saved_events as (
     ${insertRowsSql(outboxEvents, "$4")} where ${SAVED}
   ), saved_session as (
     update upsell_sessions set status = $6, accepted_offers = $7::jsonb, declined_offers = $8::jsonb, total_upsell_cents = $9,
       current_step = $10, updated_at = $11
     where id = $5 and ${SAVED}
   ), saved_stats as (
     ${bumpStatsSql("$12", "$13", "$21", "$14", "$11", SAVED)}
   )
   select ${CURRENT} as current, ${SAVED} as saved`,
);

export interface Answer {
  /** The session as read: the answer was decided on it, and is saved only while it is still so. */
  session: UpsellSessionRow;
  /** The session's new state. */
  changes: Pick<UpsellSessionRow, "status" | "acceptedOffers" | "declinedOffers" | "totalUpsellCents" | "currentStep">;
  result: typeof upsellOfferResults.$inferInsert;
  /** An accept's upsell order and its line item. */
  order?: { row: typeof orders.$inferInsert; lineItem: typeof orderLineItems.$inferInsert };
  events: (typeof outboxEvents.$inferInsert)[];
  stats: StatsDelta[];
  at: Date;
  /** A charge's answer: the claim it replaces. A decline replaces no claim but one older than `abandonedBefore`. */
  over: { claim: OfferClaim } | { abandonedBefore: Date };
}

/**
 * `saved`: the answer with everything it changes. Nothing written otherwise: `session_changed` when
 * another answer of the session landed since it was read (decide again on the session as it is now),
 * `not_ours` when the offer's row is not the answer's to replace: a charge of the offer is in progress
 * (a decline), or the claim was taken over (a charge).
 */
export type SaveOutcome = "saved" | "session_changed" | "not_ours";

/**
 * Everything an answer changes, in one statement. A funnel's session also counts per step and variant:
 * the caller (decide-answer.ts) runs it in a transaction with those writes.
 */
export async function saveAnswer(db: Db, answer: Answer): Promise<SaveOutcome> {
  const { session, changes, over } = answer;
  const [row] = await runHot<{ current: boolean; saved: boolean }>(db, SAVE_ANSWER, [
    rowsAsJson(orders, answer.order ? [answer.order.row] : []),
    rowsAsJson(orderLineItems, answer.order ? [answer.order.lineItem] : []),
    rowsAsJson(upsellOfferResults, [answer.result]),
    rowsAsJson(outboxEvents, answer.events),
    session.id,
    changes.status,
    JSON.stringify(changes.acceptedOffers),
    JSON.stringify(changes.declinedOffers),
    changes.totalUpsellCents,
    changes.currentStep,
    answer.at,
    session.brandId,
    session.currency,
    statsJson(answer.stats),
    "claim" in over ? over.claim.chargeKey : null,
    "claim" in over ? over.claim.claimedAt : null,
    "claim" in over ? null : over.abandonedBefore,
    JSON.stringify(session.acceptedOffers),
    JSON.stringify(session.declinedOffers),
    session.totalUpsellCents,
    session.livemode,
  ]);
  return row!.saved ? "saved" : row!.current ? "not_ours" : "session_changed";
}
