// Every value sealed with ENCRYPTION_KEY that the database holds, and `resealAll`, which re-seals them
// with the current key (`npm run rotate-keys`, docs/operations.md "Rotating ENCRYPTION_KEY").
import { sql, type SQL } from "drizzle-orm";
import { decrypt, isSealedWith, seal, UndecryptableSecret } from "../lib/crypto.js";
import type { Db } from "./client.js";

/** Where sealed values live: table, column, and the primary key that finds the row again. */
export const SEALED_COLUMNS = [
  { table: "provider_settings", column: "sealed_secrets", key: ["brand_id", "provider"] },
  { table: "provider_test_settings", column: "sealed_secrets", key: ["brand_id", "provider"] },
  { table: "brand_signing_keys", column: "sealed_secret", key: ["kid"] },
  { table: "webhook_endpoints", column: "sealed_secret", key: ["id"] },
  { table: "users", column: "totp_secret_sealed", key: ["id"] },
  { table: "users", column: "totp_pending_secret_sealed", key: ["id"] },
] as const;

export interface ResealCounts {
  /** Opened with a previous key (or the old format) and written back sealed with the current key. */
  resealed: number;
  /** Already sealed with the current key: left alone. */
  current: number;
  /** Opened by no configured key: left alone (its feature fails until the key is configured again). */
  undecryptable: number;
  /** Changed by the service between our read and our write: left as the service wrote it. */
  changed: number;
}

const PAGE = 200;

/**
 * Re-seals every sealed value with `keyring[0]`, row by row: each write is one statement that only
 * applies while the row still holds the value read (compare-and-set), so it is safe while instances
 * serve and write. Idempotent: a second run finds everything current. Counts per table.
 */
export async function resealAll(db: Db, keyring: readonly Buffer[], onRow?: (table: string, outcome: keyof ResealCounts, id: string) => void | Promise<void>): Promise<Map<string, ResealCounts>> {
  const current = keyring[0]!;
  const counts = new Map<string, ResealCounts>();
  for (const { table, column, key } of SEALED_COLUMNS) {
    const tally = counts.get(table) ?? { resealed: 0, current: 0, undecryptable: 0, changed: 0 };
    counts.set(table, tally);
    const keyList = sql.join(key.map((k) => sql.identifier(k)), sql`, `);
    let after: string[] | null = null;
    for (;;) {
      const from: SQL = after === null ? sql`true` : sql`(${keyList}) > (${sql.join(after.map((v) => sql`${v}`), sql`, `)})`;
      const page = rowsOf<Record<string, string>>(
        await db.execute(sql`select ${keyList}, ${sql.identifier(column)} as sealed from ${sql.identifier(table)} where ${sql.identifier(column)} is not null and ${from} order by ${keyList} limit ${PAGE}`),
      );
      for (const row of page) {
        const ids = key.map((k) => String(row[k]));
        const outcome = await resealRow(db, { table, column, key, ids, sealed: row.sealed }, keyring, current);
        tally[outcome]++;
        await onRow?.(table, outcome, ids.join("/"));
      }
      if (page.length < PAGE) break;
      after = key.map((k) => String(page[page.length - 1]![k]));
    }
  }
  return counts;
}

async function resealRow(
  db: Db,
  row: { table: string; column: string; key: readonly string[]; ids: string[]; sealed: string },
  keyring: readonly Buffer[],
  current: Buffer,
): Promise<keyof ResealCounts> {
  if (isSealedWith(row.sealed, current)) return "current";
  let plaintext: string;
  try {
    plaintext = decrypt(row.sealed, keyring);
  } catch (error) {
    if (error instanceof UndecryptableSecret) return "undecryptable";
    throw error;
  }
  const where = sql.join(row.key.map((k, i) => sql`${sql.identifier(k)} = ${row.ids[i]}`), sql` and `);
  const column = sql.identifier(row.column);
  const written = rowsOf(
    await db.execute(sql`update ${sql.identifier(row.table)} set ${column} = ${seal(plaintext, current)} where ${where} and ${column} = ${row.sealed} returning 1 as written`),
  );
  return written.length === 1 ? "resealed" : "changed";
}

/** The rows of `db.execute` on either driver (node-postgres and PGlite both answer `{ rows }`). */
function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
