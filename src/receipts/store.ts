import { inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { brands, orders, outboxEvents } from "../db/schema/index.js";

/** The buyer-facing events a receipt follows. Keep in step with outbox_events_receipt_idx. */
export const RECEIPT_EVENTS = ["order.confirmed", "upsell.accepted", "refund.succeeded"] as const;

/** Up to `limit` events still waiting for their receipt, oldest first, locked until the caller's transaction ends (SKIP LOCKED for other processes). */
export async function claimReceiptEvents(tx: Db, limit: number) {
  return tx
    .select({ id: outboxEvents.id, brandId: outboxEvents.brandId, type: outboxEvents.type, payload: outboxEvents.payload, livemode: outboxEvents.livemode })
    .from(outboxEvents)
    .where(sql`${outboxEvents.receiptAt} is null and ${outboxEvents.type} in ('order.confirmed', 'upsell.accepted', 'refund.succeeded')`)
    .orderBy(outboxEvents.createdAt)
    .limit(limit)
    .for("update", { skipLocked: true });
}

export async function markReceiptsHandled(tx: Db, ids: string[], at: Date): Promise<void> {
  if (ids.length > 0) await tx.update(outboxEvents).set({ receiptAt: at }).where(inArray(outboxEvents.id, ids));
}

export async function receiptBrands(tx: Db, ids: string[]) {
  const rows = await tx
    .select({ id: brands.id, name: brands.name, style: brands.style, supportEmail: brands.supportEmail, receiptsEnabled: brands.receiptsEnabled })
    .from(brands)
    .where(inArray(brands.id, ids));
  return new Map(rows.map((row) => [row.id, row]));
}

/** A charge as its events name it (upsell.accepted, refund.succeeded): the order row it made carries the buyer's address. */
export interface ChargeRef {
  brandId: string;
  transactionId: string;
  orderId: string;
}

export const chargeRefKey = (key: ChargeRef): string => `${key.brandId}\n${key.transactionId}\n${key.orderId}`;

/** The buyer's address of each charge, by the ids its events carry (chargeRefKey), for a whole batch in one statement. */
export async function receiptAddresses(tx: Db, keys: ChargeRef[]): Promise<Map<string, string>> {
  if (keys.length === 0) return new Map();
  const rows = await tx
    .select({ brandId: orders.brandId, transactionId: orders.transactionId, orderId: orders.orderId, customerEmail: orders.customerEmail })
    .from(orders)
    .where(sql`(${orders.brandId}, ${orders.transactionId}, ${orders.orderId}) in (${sql.join(keys.map((k) => sql`(${k.brandId}, ${k.transactionId}, ${k.orderId})`), sql`, `)})`);
  return new Map(rows.map((row) => [chargeRefKey(row), row.customerEmail]));
}

/**
 * The team addresses of each brand (issue 33: where test receipts go): the people who administer it —
 * the owners and admins of its organization and the brand's own admins — each address once, sorted.
 */
export async function teamAddresses(tx: Db, brandIds: string[]): Promise<Map<string, string[]>> {
  if (brandIds.length === 0) return new Map();
  const result = await tx.execute(sql`
    select b.id as "brandId", u.email as "email"
    from brands b
    join memberships m on m.organization_id = b.organization_id and m.role in ('owner', 'admin')
    join users u on u.id = m.user_id
    where b.id in (${sql.join(brandIds.map((id) => sql`${id}`), sql`, `)})
    union
    select b.id, u.email
    from brands b
    join brand_access a on a.brand_id = b.id and a.role = 'admin'
    join memberships m on m.user_id = a.user_id and m.organization_id = b.organization_id
    join users u on u.id = a.user_id
    where b.id in (${sql.join(brandIds.map((id) => sql`${id}`), sql`, `)})
    order by 1, 2`);
  const team = new Map<string, string[]>();
  for (const row of (result as unknown as { rows: { brandId: string; email: string }[] }).rows) {
    team.set(row.brandId, [...(team.get(row.brandId) ?? []), row.email]);
  }
  return team;
}
