import { sql } from "drizzle-orm";
import type { Db } from "../db/client.js";

/**
 * Takes a transaction-scoped advisory lock if no other session holds it (released at commit or
 * rollback, so a dead process never keeps it). False when another instance holds it.
 */
export async function tryTransactionLock(tx: Db, key: number): Promise<boolean> {
  const result = await tx.execute(sql`select pg_try_advisory_xact_lock(${key}) as locked`);
  return (result as unknown as { rows: { locked: boolean }[] }).rows[0]?.locked === true;
}
