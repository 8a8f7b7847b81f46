import type { Db } from "./client.js";

const IN_TRANSACTION = Symbol("inTransaction");

/**
 * Runs fn in a transaction, or inside the caller's when `db` already is one, so verbs compose:
 * a verb that writes an order, its audit record and its outbox events commits them together.
 */
export async function withTransaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  if ((db as unknown as Record<symbol, boolean>)[IN_TRANSACTION]) return fn(db);
  return db.transaction(async (tx) => {
    (tx as unknown as Record<symbol, boolean>)[IN_TRANSACTION] = true;
    return fn(tx as unknown as Db);
  });
}
