// A database migrated to the commit before one migration, then to the end: for the tests of a
// migration's backfill (rows written as the previous release had them, then the migration run).
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import type { SQL } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { freshDatabaseUrl, testEngine } from "./database.js";

/** The committed migrations. */
export const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/db/migrations");

export interface MigrationStep {
  db: { execute(query: SQL): Promise<unknown> };
  /** Applies the migrations up to, not including, the tag: the database as a deployment had it. */
  migrateBefore(): Promise<void>;
  /** Applies every committed migration (the tag's and any later one). */
  migrateAll(): Promise<void>;
  rowsOf(query: SQL): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** The committed migrations before `tag`, in a temp folder (its journal cut before the tag). */
function migrationsBefore(tag: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), "migrations-"));
  cpSync(MIGRATIONS, dir, { recursive: true });
  const journalPath = path.join(dir, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { idx: number; tag: string }[] };
  const entry = journal.entries.find((e) => e.tag === tag);
  if (!entry) throw new Error(`no migration ${tag}`);
  journal.entries = journal.entries.filter((e) => e.idx < entry.idx);
  writeFileSync(journalPath, JSON.stringify(journal));
  return dir;
}

/** An empty database of the test engine (PGlite in memory, or a fresh PostgreSQL one), to step through `tag`. */
export async function migrationStep(tag: string): Promise<MigrationStep> {
  const before = migrationsBefore(tag);
  let db: MigrationStep["db"];
  let migrateTo: (folder: string) => Promise<void>;
  let closeDb: () => Promise<void>;
  if (testEngine === "pglite") {
    const client = new PGlite();
    const pgliteDb = drizzlePglite(client);
    db = pgliteDb;
    migrateTo = (folder) => migratePglite(pgliteDb, { migrationsFolder: folder });
    closeDb = () => client.close();
  } else {
    const database = await freshDatabaseUrl({ empty: true });
    const pool = new pg.Pool({ connectionString: database.url, max: 1 });
    const pgDb = drizzlePg(pool);
    db = pgDb;
    migrateTo = (folder) => migratePg(pgDb, { migrationsFolder: folder });
    closeDb = async () => {
      await pool.end();
      await database.drop();
    };
  }
  return {
    db,
    migrateBefore: () => migrateTo(before),
    migrateAll: () => migrateTo(MIGRATIONS),
    rowsOf: async (query) => ((await db.execute(query)) as { rows: Record<string, unknown>[] }).rows,
    close: async () => {
      await closeDb();
      rmSync(before, { recursive: true, force: true });
    },
  };
}
