import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { migrateDatabase, openDatabase } from "../../src/db/client.js";

/** Which engine this test run uses: vitest projects set TEST_DB (see vitest.config.ts). */
export const testEngine = process.env.TEST_DB === "postgres" ? "postgres" : "pglite";

/**
 * A fresh database for one test app, so tests never see each other's rows: an in-memory PGlite,
 * or a new PostgreSQL database created next to DATABASE_URL's and dropped afterwards.
 */
export async function freshDatabaseUrl(): Promise<{ url: string; drop(): Promise<void> }> {
  if (testEngine === "pglite") return { url: "memory://", drop: async () => {} };
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error("TEST_DB=postgres needs DATABASE_URL");
  return createDatabase(base, "test");
}

/** A new, empty PostgreSQL database next to `baseUrl`'s, named `<prefix>_…`; `drop` removes it (forcing out any connection). */
export async function createDatabase(baseUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

let snapshot: Promise<Blob> | undefined;

/** One migrated in-memory database per test worker, dumped once; each test app loads a copy (2-4x faster than initdb). */
export function pgliteSnapshot(): Promise<Blob> {
  snapshot ??= (async () => {
    const database = await openDatabase({ kind: "pglite-memory", url: "memory://" }, "");
    await migrateDatabase(database);
    const client = (database.db as unknown as { $client: PGlite }).$client;
    const dump = await client.dumpDataDir("none");
    await database.close();
    return dump;
  })();
  return snapshot;
}
