import { and, desc, eq, getTableColumns, inArray } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { hotStatement, rowsAsJson, runHot, selectColumns, insertRowsSql } from "../db/hot.js";
import { demoProviderRecords } from "../db/schema/index.js";
import type { DemoLedger, LedgerKind, LedgerPatch, LedgerRecord, NewLedgerRecord, PendingOrder, SavedMethodCharge } from "../providers/demo/ledger.js";
import type { PaymentProviderType } from "../providers/types.js";

/**
 * The demo ledger over our table `demo_provider_records`: what the demo adapters keep in place of a
 * real provider. The registry hands it, bound to the caller's handle, to the demo adapters.
 */
export function createDemoLedger(db: Db): DemoLedger {
  return {
    insert: (now, record) => insertRecord(db, now, record),
    update: (now, id, patch) => updateRecord(db, now, id, patch),
    reuseOrCreatePendingOrder: (now, order) => reuseOrCreatePendingOrder(db, now, order),
    find: (provider, id, kinds, lock) => findRecord(db, provider, id, kinds, lock),
    findLatestForOrder: (provider, kind, orderId, statuses, lock) => findLatestForOrder(db, provider, kind, orderId, statuses, lock),
    insertSavedMethodCharge: (now, charge) => insertSavedMethodCharge(db, now, charge),
    insertChargeOfOpenOrder: (now, record) => insertChargeOfOpenOrder(db, now, record),
  };
}

const COLUMNS = selectColumns(demoProviderRecords, "r");
const INSERT_RECORD = hotStatement(
  "demo_insert_record",
  `${insertRowsSql(demoProviderRecords, "$1", "r")} on conflict (id) do nothing returning ${COLUMNS}`,
);

// The demo ledger is on every demo request's path (initialize, payment, complete, upsell accept), so
// its statements are hot ones (src/db/hot.ts), like the service's own.
async function insertRecord(db: Db, now: number, record: NewLedgerRecord): Promise<LedgerRecord> {
  const at = new Date(now);
  const [row] = await runHot<LedgerRecord>(db, INSERT_RECORD, [rowsAsJson(demoProviderRecords, [{ ...record, data: record.data ?? {}, createdAt: at, updatedAt: at }])]);
  return row ?? (await earlierRecord(db, record.id));
}

/**
 * The record kept already with the id of one not inserted: ids made of an idempotency key repeat when
 * the call does (a retry after a crash), and the repeat is answered with the first record, as a
 * provider answers a repeated key. Read in a statement of its own, so a racing first insert is seen
 * once it committed.
 */
async function earlierRecord(db: Db, id: string): Promise<LedgerRecord> {
  const [row] = await runHot<LedgerRecord>(db, FIND_RECORD, [id]);
  if (!row) throw new Error(`demo ledger record ${id} neither inserted nor found`);
  return row;
}

async function updateRecord(db: Db, now: number, id: string, patch: LedgerPatch): Promise<LedgerRecord> {
  const [row] = await db
    .update(demoProviderRecords)
    .set({ ...patch, updatedAt: new Date(now) })
    .where(eq(demoProviderRecords.id, id))
    .returning();
  return row!;
}

const REUSE_OR_CREATE_PENDING_ORDER = hotStatement(
  "demo_reuse_or_create_pending_order",
  `with newest as (
     select id, amount_cents, currency from demo_provider_records
     where provider = $2 and order_id = $3 and kind = 'provider_order' and status = 'pending'
     order by created_at desc limit 1
   ), reused as (
     select id from newest where amount_cents = $4 and currency = $5
   ), created as (
     insert into demo_provider_records (id, provider, kind, order_id, amount_cents, currency, status, data, created_at, updated_at)
     select $1, $2, 'provider_order', $3, $4, $5, 'pending', $6::jsonb, $7, $7
     where not exists (select 1 from reused)
     returning id
   )
   select id from reused union all select id from created`,
);

/**
 * A provider order for initialize, in one round trip: the newest pending order of this orderId when
 * its amount and currency still match (a reloaded page initializes again), else a new one with `id`.
 */
async function reuseOrCreatePendingOrder(
  db: Db,
  now: number,
  order: PendingOrder,
): Promise<string> {
  const [row] = await runHot<{ id: string }>(db, REUSE_OR_CREATE_PENDING_ORDER, [
    order.id,
    order.provider,
    order.orderId,
    order.amountCents,
    order.currency,
    JSON.stringify(order.data),
    new Date(now),
  ]);
  return row!.id;
}

/**
 * A record of this provider by id; ids of other providers are unknown here, as they would be.
 * `lock` takes a row lock for the rest of the caller's transaction, so concurrent payments of one
 * order or intent charge once (CONTRACT §7).
 */
async function findRecord(db: Db, provider: PaymentProviderType, id: string, kinds: LedgerKind[], lock = false): Promise<LedgerRecord | null> {
  const [row] = await runHot<LedgerRecord>(db, lock ? LOCK_RECORD : FIND_RECORD, [id]);
  return row && row.provider === provider && (kinds as string[]).includes(row.kind) ? row : null;
}
// By primary key alone, provider and kind checked above: with `provider = $2` in the SQL, the generic
// plan a connection builds while the table is still empty used the (provider, order_id) index and
// kept it, reading every row of the provider per call as the table grew (10 ms per call at 25 000
// rows, found by bench/flow-statements.mjs).
const FIND_RECORD_SQL = `select ${COLUMNS} from demo_provider_records r where r.id = $1`;
const FIND_RECORD = hotStatement("demo_find_record", FIND_RECORD_SQL);
const LOCK_RECORD = hotStatement("demo_lock_record", `${FIND_RECORD_SQL} for update`);

/** The newest record of a kind for an orderId in one of the given statuses. */
async function findLatestForOrder(db: Db, provider: PaymentProviderType, kind: LedgerKind, orderId: string, statuses: string[], lock = false): Promise<LedgerRecord | null> {
  const query = db
    .select()
    .from(demoProviderRecords)
    .where(
      and(
        eq(demoProviderRecords.provider, provider),
        eq(demoProviderRecords.kind, kind),
        eq(demoProviderRecords.orderId, orderId),
        inArray(demoProviderRecords.status, statuses),
      ),
    )
    .orderBy(desc(demoProviderRecords.createdAt))
    .limit(1);
  const [row] = lock ? await query.for("update") : await query;
  return row ?? null;
}

// A saved method's charge in one round trip (it was the issuer's read, then the insert): the successful
// payment that first issued the token ($4) gives the card; none, nothing kept. `issuerId` without a
// kept row: a charge with this id is kept already (a repeat of its idempotency key).
const INSERT_SAVED_METHOD_CHARGE = hotStatement(
  "demo_insert_saved_method_charge",
  `with issuer as (
     select r.id, r.card_last4, r.card_behaviour, coalesce(r.card_behaviour = $10, false) as refuses from demo_provider_records r
     where r.provider = $2 and r.payment_method_token = $4 and r.status = 'succeeded' and r.kind in ('payment_intent', 'charge')
     order by r.created_at asc limit 1
   ), kept as (
     insert into demo_provider_records as r (id, provider, kind, order_id, amount_cents, currency, status, payment_method_token, card_last4, card_behaviour, data, created_at, updated_at)
     select $1, $2, $3, $5, $6, $7, case when i.refuses then 'failed' else 'succeeded' end, case when i.refuses then null else $4 end,
       i.card_last4, i.card_behaviour,
       jsonb_build_object('savedMethodOf', i.id, 'originalOrderId', $8::text) || case when i.refuses then '{"reason": "card_declined"}'::jsonb else '{}'::jsonb end,
       $9, $9
     from issuer i
     on conflict (id) do nothing
     returning ${COLUMNS}
   )
   select i.id as "issuerId", kept.* from issuer i left join kept on true`,
);

async function insertSavedMethodCharge(db: Db, now: number, charge: SavedMethodCharge): Promise<LedgerRecord | null> {
  const [row] = await runHot<LedgerRecord & { issuerId: string }>(db, INSERT_SAVED_METHOD_CHARGE, [
    charge.id,
    charge.provider,
    charge.kind,
    charge.paymentMethodToken,
    charge.orderId,
    charge.amountCents,
    charge.currency,
    charge.originalOrderId,
    new Date(now),
    charge.refusingBehaviour,
  ]);
  if (!row) return null;
  const { issuerId: _issuer, ...kept } = row;
  return kept.id ? kept : earlierRecord(db, charge.id);
}

// A demo card payment of an order gateway in one round trip (it was a locked read, the insert and the
// order's update in a transaction): the pay step's statements, docs/performance.md.
const RECORD_COLUMNS = Object.values(getTableColumns(demoProviderRecords)).map((column) => `"${column.name}"`);
const INSERT_CHARGE_OF_OPEN_ORDER = hotStatement(
  "demo_insert_charge_of_open_order",
  `with open_order as (
     select id from demo_provider_records
     where provider = $2 and order_id = $3 and kind = 'provider_order' and status = 'pending'
     order by created_at desc limit 1
     for update
   ), charge as (
     insert into demo_provider_records as r (${RECORD_COLUMNS.join(", ")})
     select ${RECORD_COLUMNS.map((c) => (c === '"provider_order_id"' ? "(select id from open_order)" : c)).join(", ")}
     from jsonb_populate_recordset(null::demo_provider_records, $1::jsonb)
     on conflict (id) do nothing
     returning ${COLUMNS}
   ), paid as (
     update demo_provider_records set status = 'paid', updated_at = $4
     where id = (select id from open_order) and exists (select 1 from charge where "status" = 'succeeded')
   )
   select * from charge`,
);

async function insertChargeOfOpenOrder(db: Db, now: number, record: NewLedgerRecord): Promise<LedgerRecord> {
  const at = new Date(now);
  const [row] = await runHot<LedgerRecord>(db, INSERT_CHARGE_OF_OPEN_ORDER, [
    rowsAsJson(demoProviderRecords, [{ ...record, data: record.data ?? {}, createdAt: at, updatedAt: at }]),
    record.provider,
    record.orderId,
    at,
  ]);
  return row ?? (await earlierRecord(db, record.id));
}
