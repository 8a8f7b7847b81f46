import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";

/** Which engine this test run uses: vitest projects set TEST_DB (see vitest.config.ts). */
export const testEngine = process.env.TEST_DB === "postgres" ? "postgres" : "pglite";

/**
 * A fresh database for one test app, so tests never see each other's rows: an in-memory PGlite (which
 * the app loads from pgliteSnapshot()), or a new PostgreSQL database next to DATABASE_URL's, cloned
 * from the run's migrated template (test/support/migrated-database.ts) and dropped afterwards.
 * `empty`: a database without the migrations, for tests that run them (PostgreSQL only).
 */
export async function freshDatabaseUrl(options: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  if (testEngine === "pglite") return { url: "memory://", drop: async () => {} };
  const base = process.env.DATABASE_URL;
  if (!base) throw new Error("TEST_DB=postgres needs DATABASE_URL");
  return createDatabase(base, "test", options.empty ? undefined : await provided("postgresTemplate"));
}

/**
 * A new PostgreSQL database next to `baseUrl`'s, named `<prefix>_…`: empty, or a copy of `template`;
 * `drop` removes it (forcing out any connection).
 */
export async function createDatabase(baseUrl: string, prefix: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
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

/** The run's migrated PGlite data directory (test/support/migrated-database.ts), read once per test file; each test app loads a copy. */
export function pgliteSnapshot(): Promise<Blob> {
  snapshot ??= (async () => new Blob([await readFile(await pgliteDumpFile())]))();
  return snapshot;
}

/** The run's migrated PGlite data directory as a tar file (test/support/migrated-database.ts). */
export const pgliteDumpFile = (): Promise<string> => provided("pgliteDump");

/** A value the run's globalSetup provided (imported here, not at the top: cluster.ts, which scripts use outside vitest, imports this file). */
async function provided<K extends "pgliteDump" | "postgresTemplate">(key: K): Promise<string> {
  const { inject } = await import("vitest");
  const value = inject(key);
  if (!value) throw new Error(`no migrated database (${key}): run the tests through vitest.config.ts, whose globalSetup builds it`);
  return value;
}
