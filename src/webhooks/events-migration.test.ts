// Migration 0025_events_api (issue 33): keys that held every scope keep every scope (they gain
// events:read and webhooks:write); keys made with fewer keep exactly theirs. Events already in the
// outbox get an insertion order (seq) and stay listable.
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
const TAG = "0025_events_api";

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

it("gives events:read and webhooks:write to keys that held all four scopes, and a seq to every event", async () => {
  await migrateTo(before);
  const all = ["checkouts:write", "orders:read", "orders:refund", "upsell:write"];
  for (const [id, scopes] of [["key_all", all], ["key_some", ["orders:read"]], ["key_reordered", [...all].reverse()]] as const) {
    await db.execute(sql`insert into api_keys (id, organization_id, brand_id, name, prefix, key_hash, scopes, created_at)
      values (${id}, 'org_1', 'brand_1', ${id}, 'sk_x', ${`hash_${id}`}, ${JSON.stringify(scopes)}::jsonb, now())`);
  }
  for (const id of ["evt_a", "evt_b"]) {
    await db.execute(sql`insert into outbox_events (id, brand_id, type, payload, created_at) values (${id}, 'brand_1', 'order.confirmed', '{}', now())`);
  }

  await migrateTo(MIGRATIONS);

  expect(await rowsOf(sql`select id, scopes from api_keys order by id`)).toEqual([
    { id: "key_all", scopes: [...all, "events:read", "webhooks:write"] },
    { id: "key_reordered", scopes: [...[...all].reverse(), "events:read", "webhooks:write"] },
    { id: "key_some", scopes: ["orders:read"] },
  ]);
  const events = await rowsOf(sql`select id, seq::int as seq from outbox_events order by seq`);
  expect(events.map((e) => e.id).sort()).toEqual(["evt_a", "evt_b"]);
  expect(new Set(events.map((e) => e.seq)).size).toBe(2);
  // New rows get the next seq without naming it; naming one is refused (the database owns it).
  await db.execute(sql`insert into outbox_events (id, brand_id, type, payload, created_at) values ('evt_c', 'brand_1', 'order.confirmed', '{}', now())`);
  expect(await rowsOf(sql`select id from outbox_events order by seq desc limit 1`)).toEqual([{ id: "evt_c" }]);
  await expect(db.execute(sql`insert into outbox_events (id, brand_id, type, payload, created_at, seq) values ('evt_d', 'brand_1', 'x', '{}', now(), 99)`)).rejects.toThrow();
});
