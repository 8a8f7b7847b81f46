import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { hotStatement, runHot } from "../db/hot.js";
import { checkouts, DEFAULT_BRAND_ID, orderCharges, orders, paymentDeclines } from "../db/schema/index.js";
import type { PaymentProviderType } from "../providers/types.js";

/** Whose payment this is: the checkout found for the orderId, else the default brand (CONTRACT §27). */
export interface OrderContext {
  brandId: string;
  checkoutId: string | null;
  webhookUrl: string | null;
  /** The checkout's amount and currency, when there is a checkout. */
  amountCents: number | null;
  currency: string | null;
  /** The checkout came from the public token generator: demo-mode providers only (CONTRACT §35). */
  demoOnly: boolean;
  /** The checkout's stored mode (issue 33): the adapter that charges it; null without a checkout. */
  livemode: boolean | null;
  /** The checkout is completed: the order is paid (CONTRACT §37). */
  completed: boolean;
  /** The checkout's metadata (its token's claim), for its events (issue 33); null without one. */
  metadata: Record<string, string> | null;
}

/** The amount and currency a payment request states, when it states them. */
export interface StatedAmount {
  amountCents: number;
  currency: string;
}

/**
 * The checkout an orderId's payment belongs to (the same orderId may exist in two brands): an open one
 * before a completed one, then one of the amount and currency the request states (the checkout it
 * pays, when several are open), then the newest.
 */
export async function orderContextOf(db: Db, where: { orderId: string } | { provider: PaymentProviderType; providerOrderId: string }, stated?: StatedAmount): Promise<OrderContext> {
  const condition = "orderId" in where ? eq(checkouts.orderId, where.orderId) : and(eq(checkouts.provider, where.provider), eq(checkouts.providerOrderId, where.providerOrderId));
  const [checkout] = await db
    .select({
      brandId: checkouts.brandId,
      checkoutId: checkouts.id,
      webhookUrl: checkouts.webhookUrl,
      amountCents: checkouts.amountCents,
      currency: checkouts.currency,
      demoOnly: sql<boolean>`coalesce((${checkouts.claims}->>'demoOnly')::boolean, false)`,
      livemode: checkouts.livemode,
      completed: sql<boolean>`${checkouts.status} = 'completed'`,
      metadata: sql<Record<string, string> | null>`${checkouts.claims}->'metadata'`,
    })
    .from(checkouts)
    .where(condition)
    // An open checkout before completed ones: a payment for an orderId is for the checkout still being paid.
    .orderBy(
      sql`${checkouts.status} = 'completed'`,
      sql`coalesce(${checkouts.amountCents} = ${stated?.amountCents ?? null} and ${checkouts.currency} = ${stated?.currency.toUpperCase() ?? null}, false) desc`,
      desc(checkouts.createdAt),
      desc(checkouts.id),
    )
    .limit(1);
  return checkout ?? { brandId: DEFAULT_BRAND_ID, checkoutId: null, webhookUrl: null, amountCents: null, currency: null, demoOnly: false, livemode: null, completed: false, metadata: null };
}

/** Declines within the window for the order and for the client address. */
export interface DeclineCounts {
  byOrder: number;
  byAddress: number;
}

// Every payment attempt runs this: both counts in one round trip (a null address counts nothing).
const DECLINE_COUNTS = hotStatement(
  "payment_decline_counts",
  `select (select count(*) from payment_declines where order_id = $1 and created_at > $3)::int as "byOrder",
          (select count(distinct coalesce(card_fingerprint, id)) from payment_declines where client_address = $2 and created_at > $3)::int as "byAddress"`,
);

export async function countDeclines(db: Db, orderId: string, clientAddress: string | null, since: Date): Promise<DeclineCounts> {
  const [counts] = await runHot<DeclineCounts>(db, DECLINE_COUNTS, [orderId, clientAddress, since]);
  return counts!;
}

export async function insertDecline(tx: Db, decline: typeof paymentDeclines.$inferInsert): Promise<void> {
  await tx.insert(paymentDeclines).values(decline);
}

export type OrderChargeRow = typeof orderCharges.$inferSelect;
export type OrderChargeKey = Pick<OrderChargeRow, "brandId" | "orderId">;
export type OrderChargeClaim = OrderChargeKey & Pick<OrderChargeRow, "provider" | "requestHash" | "providerKey" | "createdAt">;

const whereCharge = ({ brandId, orderId }: OrderChargeKey) => and(eq(orderCharges.brandId, brandId), eq(orderCharges.orderId, orderId));
const whereHeld = (id: OrderChargeKey, providerKey: string) => and(whereCharge(id), eq(orderCharges.providerKey, providerKey), eq(orderCharges.state, "charging"));

export interface OpenedCharge {
  order: OrderContext;
  /** The claim was inserted: this request charges (CONTRACT §37). */
  held: boolean;
  /** Declines in the window, read with the claim: valid for the attempt when `held`. */
  declineCounts: DeclineCounts;
}

// A card payment's first round trip (issue 20: pay in demo mode in at most 3 statements): the order's
// checkout (as orderContextOf, $9/$10 the stated amount and currency or null), the charge claim for that checkout's brand (as claimOrderCharge) and
// the decline counts (as countDeclines), which the claim's holder is the only one to change for this
// order until it lets go of the claim.
const OPEN_ORDER_CHARGE = hotStatement(
  "payment_open_order_charge",
  `with context as (
     select brand_id, id, webhook_url, amount_cents, currency, coalesce((claims->>'demoOnly')::boolean, false) as demo_only, livemode, status = 'completed' as completed,
       claims->'metadata' as metadata
     from checkouts where order_id = $1
     order by status = 'completed', coalesce(amount_cents = $9::bigint and currency = $10::text, false) desc, created_at desc, id desc limit 1
   ), claim as (
     insert into order_charges (brand_id, order_id, provider, state, request_hash, provider_key, created_at)
     select coalesce((select brand_id from context), $6), $1, $2, 'charging', $3, $4, $5
     on conflict do nothing
     returning order_id
   )
   select c.brand_id as "brandId", c.id as "checkoutId", c.webhook_url as "webhookUrl", c.amount_cents as "amountCents", c.currency as "currency",
          coalesce(c.demo_only, false) as "demoOnly", c.livemode as "livemode", coalesce(c.completed, false) as "completed", c.metadata as "metadata",
          exists (select 1 from claim) as held,
          (select count(*) from payment_declines where order_id = $1 and created_at > $8)::int as "byOrder",
          (select count(distinct coalesce(card_fingerprint, id)) from payment_declines where client_address = $7 and created_at > $8)::int as "byAddress"
   from (select 1) as one left join context c on true`,
);

/** orderContextOf, claimOrderCharge and countDeclines of a card payment in one round trip. */
export async function openOrderCharge(
  db: Db,
  claim: Pick<OrderChargeRow, "orderId" | "provider" | "requestHash" | "providerKey" | "createdAt">,
  declines: { clientAddress: string | null; since: Date },
  stated?: StatedAmount,
): Promise<OpenedCharge> {
  const [row] = await runHot<Omit<OrderContext, "brandId"> & { brandId: string | null; held: boolean } & DeclineCounts>(db, OPEN_ORDER_CHARGE, [
    claim.orderId,
    claim.provider,
    claim.requestHash,
    claim.providerKey,
    claim.createdAt,
    DEFAULT_BRAND_ID,
    declines.clientAddress,
    declines.since,
    stated?.amountCents ?? null,
    stated?.currency.toUpperCase() ?? null,
  ]);
  const { held, byOrder, byAddress, brandId, ...context } = row!;
  return { order: { ...context, brandId: brandId ?? DEFAULT_BRAND_ID }, held, declineCounts: { byOrder, byAddress } };
}

/** Inserts a `charging` claim; false when the order already has one (ON CONFLICT: one winner across processes). */
export async function claimOrderCharge(db: Db, claim: OrderChargeClaim): Promise<boolean> {
  const rows = await db.insert(orderCharges).values({ ...claim, state: "charging" }).onConflictDoNothing().returning({ orderId: orderCharges.orderId });
  return rows.length === 1;
}

export async function findOrderCharge(db: Db, id: OrderChargeKey): Promise<OrderChargeRow | undefined> {
  const [row] = await db.select().from(orderCharges).where(whereCharge(id));
  return row;
}

/** Takes over an abandoned claim, if it is still the one read (created at `seenAt`): one winner. */
export async function takeOverOrderCharge(db: Db, claim: OrderChargeClaim, seenAt: Date): Promise<boolean> {
  const rows = await db
    .update(orderCharges)
    .set({ provider: claim.provider, requestHash: claim.requestHash, providerKey: claim.providerKey, createdAt: claim.createdAt })
    .where(and(whereCharge(claim), eq(orderCharges.state, "charging"), eq(orderCharges.createdAt, seenAt)))
    .returning({ orderId: orderCharges.orderId });
  return rows.length === 1;
}

export async function markOrderChargePaid(db: Db, id: OrderChargeKey, providerKey: string, reply: Record<string, unknown>, paidAt: Date): Promise<void> {
  await db.update(orderCharges).set({ state: "paid", reply, paidAt }).where(whereHeld(id, providerKey));
}

/** Ends a claim without a charge: `delete` (nothing was charged) or `abandon` (unknown: the next attempt takes it over at once). */
export async function releaseOrderCharge(db: Db, id: OrderChargeKey, providerKey: string, how: "delete" | "abandon"): Promise<void> {
  if (how === "delete") await db.delete(orderCharges).where(whereHeld(id, providerKey));
  else await db.update(orderCharges).set({ createdAt: new Date(0) }).where(whereHeld(id, providerKey));
}

/** Housekeeping: forgets up to `limit` stored answers of charges paid before `before`; the claim stays (the order is paid). */
export async function forgetOldChargeReplies(tx: Db, before: number, limit: number): Promise<number> {
  const result = await tx.execute(sql`
    with gone as (
      update order_charges c set reply = null
      from (select brand_id, order_id from order_charges where reply is not null and paid_at < ${new Date(before)} limit ${limit}) old
      where c.brand_id = old.brand_id and c.order_id = old.order_id
      returning 1
    )
    select count(*)::int as forgotten from gone`);
  return (result as unknown as { rows: { forgotten: number }[] }).rows[0]?.forgotten ?? 0;
}

/**
 * How an order was paid (issue 33): true in the demo ledger, false at a provider (live, or a sandbox
 * with test credentials), null for rows from before it was recorded; undefined when no order has the id.
 */
export async function paidInDemoOf(db: Db, brandId: string, orderId: string): Promise<boolean | null | undefined> {
  const [row] = await db.select({ paidInDemo: orders.paidInDemo }).from(orders).where(and(eq(orders.brandId, brandId), eq(orders.orderId, orderId))).limit(1);
  return row?.paidInDemo;
}
