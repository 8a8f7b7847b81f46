// Migration 0005_commission_currency: commissions written before it take their order's currency
// (else their checkout's, else the USD the pages used to assume), and the column is then required.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freshDatabaseUrl, testEngine } from "../../test/support/database.js";

const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../db/migrations");
const TAG = "0005_commission_currency";

/** The committed migrations up to, not including, this one: the database as a deployment had it. */
function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "migrations-"));
  cpSync(MIGRATIONS, dir, { recursive: true });
  const journalPath = path.join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number; tag: string }[] };
  const idx = journal.entries.find((e) => e.tag === tag)!.idx;
  journal.entries = journal.entries.filter((e) => e.idx < idx);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

type Migrate = (folder: string) => Promise<void>;
let db: { execute(query: ReturnType<typeof sql>): Promise<unknown> };
let migrateTo: Migrate;
let close: () => Promise<void>;
const before = migrationsBefore(TAG);

beforeAll(async () => {
  if (testEngine === "pglite") {
    const client = new PGlite();
    const pgliteDb = drizzlePglite(client);
    db = pgliteDb;
    migrateTo = (folder) => migratePglite(pgliteDb, { migrationsFolder: folder });
    close = () => client.close();
  } else {
    const database = await freshDatabaseUrl({ empty: true });
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const pgDb = drizzlePg(pool);
    db = pgDb;
    migrateTo = (folder) => migratePg(pgDb, { migrationsFolder: folder });
    close = async () => {
      await pool.end();
      await database.drop();
    };
  }
});
afterAll(async () => {
  await close?.();
  rmSync(before, { recursive: true, force: true });
});

const rowsOf = async (query: ReturnType<typeof sql>) => {
  const result = (await db.execute(query)) as { rows: Record<string, unknown>[] };
  return result.rows;
};

it("backfills each commission's currency from its order, else its checkout, else USD; new rows need one", async () => {
  await migrateTo(before);
  const at = sql`now()`;
  await db.execute(sql`insert into organizations (id, name, slug, created_at) values ('org_1', 'Org', 'org', ${at})`);
  await db.execute(sql`insert into brands (id, organization_id, name, slug, created_at) values ('brand_1', 'org_1', 'Brand', 'brand', ${at})`);
  await db.execute(sql`insert into orders (id, brand_id, kind, order_id, transaction_id, provider, amount_cents, currency, customer_email, customer_name, result, created_at)
    values ('ord_eur', 'brand_1', 'checkout', 'm-1', 'tx-1', 'vault_gateway_a', 1000, 'EUR', 'a@example.com', 'A', '{}', ${at})`);
  await db.execute(sql`insert into checkouts (id, brand_id, order_id, token_hash, claims, amount_cents, currency, status, token_expires_at, created_at, updated_at)
    values ('chk_2', 'brand_1', 'm-2', 'h', '{}', 2000, 'GBP', 'completed', ${at}, ${at}, ${at})`);
  for (const [id, orderRef, orderId] of [["com_order", "ord_eur", "m-1"], ["com_checkout", "ord_gone", "m-2"], ["com_none", "ord_none", "m-3"]]) {
    await db.execute(sql`insert into commissions (id, organization_id, brand_id, order_ref, order_id, salesperson_id, order_amount_cents, commission_amount_cents, commission_rate, commission_type, status, created_at, updated_at)
      values (${id}, 'org_1', 'brand_1', ${orderRef}, ${orderId}, 'sp_1', 1000, 100, 0.1, 'percentage', 'pending', ${at}, ${at})`);
  }

  await migrateTo(MIGRATIONS);

  expect(await rowsOf(sql`select id, currency from commissions order by id`)).toEqual([
    { id: "com_checkout", currency: "GBP" },
    { id: "com_none", currency: "USD" },
    { id: "com_order", currency: "EUR" },
  ]);
  await expect(
    db.execute(sql`insert into commissions (id, organization_id, brand_id, order_ref, order_id, salesperson_id, order_amount_cents, commission_amount_cents, commission_rate, commission_type, status, created_at, updated_at)
      values ('com_new', 'org_1', 'brand_1', 'ord_new', 'm-4', 'sp_1', 1000, 100, 0.1, 'percentage', 'pending', now(), now())`),
  ).rejects.toThrow();
});
