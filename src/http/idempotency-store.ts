import { and, eq, lt, or, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { idempotencyEffects, idempotencyKeys } from "../db/schema/index.js";

export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;
type KeyOf = Pick<IdempotencyKeyRow, "scope" | "key">;

const whereKey = ({ scope, key }: KeyOf) => and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));

/** Deletes this key's row when it has expired, or is a `running` reservation created before `abandonedBefore`. */
export async function clearStaleKey(db: Db, id: KeyOf, { now, abandonedBefore }: { now: number; abandonedBefore: number }): Promise<void> {
  await db
    .delete(idempotencyKeys)
    .where(and(whereKey(id), or(lt(idempotencyKeys.expiresAt, new Date(now)), and(eq(idempotencyKeys.state, "running"), lt(idempotencyKeys.createdAt, new Date(abandonedBefore))))));
}

/** Inserts a `running` reservation; false when the key is already held (ON CONFLICT: one winner across processes). */
export async function reserveKey(db: Db, row: Pick<IdempotencyKeyRow, "scope" | "key" | "requestHash" | "createdAt" | "expiresAt">): Promise<boolean> {
  const reserved = await db
    .insert(idempotencyKeys)
    .values({ ...row, state: "running" })
    .onConflictDoNothing()
    .returning({ key: idempotencyKeys.key });
  return reserved.length === 1;
}

export async function findKey(db: Db, id: KeyOf): Promise<IdempotencyKeyRow | undefined> {
  const [row] = await db.select().from(idempotencyKeys).where(whereKey(id));
  return row;
}

export async function deleteKey(db: Db, id: KeyOf): Promise<void> {
  await db.delete(idempotencyKeys).where(whereKey(id));
}

export async function completeKey(db: Db, id: KeyOf, response: Pick<IdempotencyKeyRow, "statusCode" | "responseBody" | "responseHeaders">): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ state: "done", ...response })
    .where(whereKey(id));
}

/** Housekeeping: deletes up to `limit` keys expired before `now`. Returns how many went. */
export async function purgeExpiredIdempotencyKeys(tx: Db, now: number, limit: number): Promise<number> {
  const result = await tx.execute(sql`
    with gone as (
      delete from idempotency_keys k
      using (select scope, key from idempotency_keys where expires_at < ${new Date(now)} limit ${limit}) old
      where k.scope = old.scope and k.key = old.key
      returning 1
    )
    select count(*)::int as deleted from gone`);
  return (result as unknown as { rows: { deleted: number }[] }).rows[0]?.deleted ?? 0;
}

export type IdempotencyEffectRow = typeof idempotencyEffects.$inferSelect;
type EffectOf = Pick<IdempotencyEffectRow, "owner" | "kind" | "key">;

/** The effect a key already names for (owner, kind), if any. */
export async function findEffect(db: Db, { owner, kind, key }: EffectOf): Promise<IdempotencyEffectRow | undefined> {
  const [row] = await db
    .select()
    .from(idempotencyEffects)
    .where(and(eq(idempotencyEffects.owner, owner), eq(idempotencyEffects.kind, kind), eq(idempotencyEffects.key, key)));
  return row;
}

/** Binds the key to what was made; false when the key was bound already (ON CONFLICT: one winner, also across processes). */
export async function insertEffect(db: Db, row: IdempotencyEffectRow): Promise<boolean> {
  const bound = await db.insert(idempotencyEffects).values(row).onConflictDoNothing().returning({ key: idempotencyEffects.key });
  return bound.length === 1;
}
