// Vitest globalSetup of the pglite and postgres projects (vitest.config.ts): migrates once per run,
// not once per test file. Every test file runs in its own process, so a per-process cache of the
// migrated database was rebuilt for each of them (5-18 s a file: PGlite's initdb and 22 migrations).
// - PGlite: the migrated data directory, dumped to a file every in-memory test database loads.
// - PostgreSQL: a migrated template database every test database is cloned from (CREATE DATABASE … TEMPLATE).
// Both are named by a hash of src/db/migrations and the engine packages' versions: a new or changed
// migration always gets a new one, and runs sharing the machine or the server (other worktrees, a
// single file run beside the whole suite) reuse a finished one instead of rebuilding it under each other.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { migrateDatabase, openDatabase } from "../../src/db/client.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The migrated PGlite data directory (a tar file) every in-memory test database starts from. */
    pgliteDump: string;
    /** The migrated PostgreSQL template database every test database is cloned from. */
    postgresTemplate: string;
  }
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MIGRATIONS = path.join(ROOT, "src/db/migrations");
const DUMPS = path.join(tmpdir(), "checkout-test-databases");
// Any fixed number (not the application's migration lock): serialises template builds of runs started together.
const TEMPLATE_LOCK = 727_273;
const WEEK_MS = 7 * 24 * 3600_000;

export default async function setup(project: TestProject): Promise<void> {
  const key = migrationsKey();
  if (project.config.env?.TEST_DB === "postgres") {
    const base = process.env.DATABASE_URL;
    if (!base) throw new Error("the postgres project needs DATABASE_URL");
    project.provide("postgresTemplate", await postgresTemplate(base, key));
  } else {
    project.provide("pgliteDump", await pgliteDump(key));
  }
}

/** 16 hex digits of a hash over every file of src/db/migrations and the versions of PGlite and drizzle-orm (its migrator). */
function migrationsKey(): string {
  const hash = createHash("sha256");
  const files = (readdirSync(MIGRATIONS, { recursive: true }) as string[]).filter((f) => statSync(path.join(MIGRATIONS, f)).isFile()).sort();
  for (const file of files) hash.update(file).update("\0").update(readFileSync(path.join(MIGRATIONS, file))).update("\0");
  for (const pkg of ["@electric-sql/pglite", "drizzle-orm"]) {
    hash.update(JSON.parse(readFileSync(path.join(ROOT, "node_modules", pkg, "package.json"), "utf8")).version);
  }
  return hash.digest("hex").slice(0, 16);
}

/** The dump file for `key`, written once (to a temporary name, then renamed: a concurrent run never reads half a file). */
async function pgliteDump(key: string): Promise<string> {
  const file = path.join(DUMPS, `pglite-${key}.tar`);
  if (existsSync(file)) return file;
  mkdirSync(DUMPS, { recursive: true });
  const database = await openDatabase({ kind: "pglite-memory", url: "memory://" }, "");
  await migrateDatabase(database);
  const dump = await (database.db as unknown as { $client: PGlite }).$client.dumpDataDir("none");
  await database.close();
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  renameSync(partial, file);
  // Dumps of older migrations, unused for a week.
  for (const old of readdirSync(DUMPS)) {
    const oldPath = path.join(DUMPS, old);
    if (oldPath !== file && Date.now() - statSync(oldPath).mtimeMs > WEEK_MS) rmSync(oldPath, { force: true });
  }
  return file;
}

/**
 * The template database for `key` next to `baseUrl`'s, built once. It is marked a template only when
 * its migrations have finished (so a build that died is dropped and redone), and takes no connections:
 * PostgreSQL refuses to clone a database anyone is connected to.
 */
async function postgresTemplate(baseUrl: string, key: string): Promise<string> {
  const name = `test_template_${key}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query("select pg_advisory_lock($1)", [TEMPLATE_LOCK]);
    const { rows } = await admin.query<{ datistemplate: boolean }>("select datistemplate from pg_database where datname = $1", [name]);
    if (rows[0]?.datistemplate) return name;
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    const database = await openDatabase({ kind: "postgres", url: url.toString() }, "", { poolSize: 1 });
    try {
      await migrateDatabase(database);
    } finally {
      await database.close();
    }
    await admin.query(`alter database ${name} with is_template true allow_connections false`);
    return name;
  } finally {
    await admin.end(); // releases the advisory lock
  }
}
