import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { drizzle as drizzlePg, type NodePgDatabase } from "drizzle-orm/node-postgres";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import { sql } from "drizzle-orm";
import pg from "pg";
import type { Logger } from "pino";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Config } from "../config/index.js";
import { POOL_DEFAULTS } from "../config/pool-settings.js";
import * as schema from "./schema/index.js";

export type Schema = typeof schema;
/** A Drizzle handle: the client or an open transaction. Both engines share one type and one dialect. */
export type Db = NodePgDatabase<Schema>;

export interface Database {
  db: Db;
  kind: Config["database"]["kind"];
  /** Resolves when the database answers a trivial query; used by /healthz. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The pg pool (PostgreSQL only): for metrics and the raw-SQL benchmark replicas. */
  pool?: pg.Pool;
  /**
   * PostgreSQL only: `listener` gets the seconds every query or transaction waited for a pool
   * connection (opening a new one included; a wait that timed out too), and whether it waited
   * behind a full pool whose connections were all open (`queued`) rather than for connections being
   * opened. For /metrics and admission control.
   */
  onConnectionWait?(listener: (seconds: number, queued: boolean) => void): void;
  /**
   * PostgreSQL only: the pool's queue right now, for admission control (src/http/admission.ts):
   * how many wait for a connection and how long the oldest of them has been waiting.
   */
  poolQueue?(): PoolQueue;
  /** PostgreSQL only: `listener` hears of every pooled connection lost (idle or in use), once each. */
  onConnectionLost?(listener: (error: Error) => void): void;
}

export interface PoolQueue {
  waiting: number;
  oldestWaitMs: number;
}


// Two levels below the package root from both src/db and dist/db, so this resolves in both.
const MIGRATIONS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src/db/migrations");
// Any fixed number: serialises migrations when several instances start together.
const MIGRATION_LOCK = 727_272;

// Return bigint columns as JS numbers (cents fit easily in 2^53).
pg.types.setTypeParser(20, (value) => Number(value));

export interface OpenOptions {
  /** Overrides the configured pool size (tests). */
  poolSize?: number;
  /** How long a query waits for a pool connection before it fails (default 5 s); tests shorten it. */
  connectionTimeoutMillis?: number;
  /** Seconds a PostgreSQL connection lives before it is replaced (see openDatabase); tests shorten it. */
  connectionLifetimeSeconds?: number;
  /** In-memory PGlite only: start from this data directory dump (tests reuse one migrated database). */
  pgliteSnapshot?: Blob;
}

export async function openDatabase(config: Config["database"], dataDir: string, options: OpenOptions = {}): Promise<Database> {
  if (config.kind === "postgres") {
    const settings = config.pool ?? POOL_DEFAULTS;
    const pool = new pg.Pool({
      connectionString: config.url!,
      max: options.poolSize ?? settings.size,
      connectionTimeoutMillis: options.connectionTimeoutMillis ?? 5_000,
      // Sent when each connection opens (0 is PostgreSQL's "none"): no statement, and no transaction
      // left waiting on the application, holds a connection for longer.
      statement_timeout: settings.statementTimeoutMs,
      idle_in_transaction_session_timeout: settings.idleInTransactionTimeoutMs,
      idleTimeoutMillis: 30_000,
      // Hot statements are prepared per connection, and PostgreSQL keeps the generic plan it made
      // on their sixth run. Made while tables were empty (a fresh deployment), such a plan can pick
      // the wrong index and keep it as they grow: a completion's read took 14 ms at 12 000 checkouts
      // (measured by the flow-statements benchmark). A connection replaced every minute plans again on the tables as
      // they are. An expired connection is only closed when released, never mid-transaction.
      maxLifetimeSeconds: options.connectionLifetimeSeconds ?? 60,
    });
    // A connection lost (database restart, a terminated backend) must never close the process. pg
    // emits "error" on the client; the pool listens only while the client is idle (and then re-emits
    // it here), so a client held by a transaction between statements, or by a job's pass, had no
    // listener: an uncaught exception (issue 31). Every client gets one for its whole life; the
    // statement in flight, if any, fails on its own (503), and the pool discards the client on release.
    const lost = new Set<(error: Error) => void>();
    const connectionLost = (error: Error) => {
      for (const listener of lost) listener(error);
    };
    pool.on("error", () => {}); // told to the client's own listener below as well
    pool.on("connect", (client) => {
      let told = false; // a lost connection emits twice: the server's FATAL, then "terminated"
      client.on("error", (error) => {
        if (!told) connectionLost(error);
        told = true;
      });
    });
    const waits = timeConnectionWaits(pool);
    const db = drizzlePg(pool, { schema });
    return {
      db,
      kind: config.kind,
      pool,
      onConnectionWait: (listener) => void waits.listeners.add(listener),
      poolQueue: waits.queue,
      onConnectionLost: (listener) => void lost.add(listener),
      ping: async () => void (await pool.query("select 1")),
      close: () => pool.end(),
    };
  }
  let client: PGlite;
  if (config.kind === "pglite-memory") {
    client = new PGlite(options.pgliteSnapshot ? { loadDataDir: options.pgliteSnapshot } : undefined);
  } else {
    const dir = path.join(dataDir, "pglite");
    mkdirSync(dir, { recursive: true });
    client = new PGlite(dir);
  }
  await client.waitReady;
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: config.kind,
    ping: async () => void (await client.query("select 1")),
    close: () => client.close(),
  };
}

/**
 * Times every wait for a connection of `pool`: pool.query and drizzle's transactions both go through
 * pool.connect, which is wrapped on this instance. Returns the set of listeners to tell, and the
 * queue as it is now (the waits in progress, in the order they started: the first is the oldest).
 */
function timeConnectionWaits(pool: pg.Pool): { listeners: Set<(seconds: number, queued: boolean) => void>; queue: () => PoolQueue } {
  const listeners = new Set<(seconds: number, queued: boolean) => void>();
  const inProgress = new Set<{ started: number }>();
  const queue = (): PoolQueue => {
    const oldest = inProgress.values().next().value;
    return { waiting: pool.waitingCount, oldestWaitMs: oldest ? performance.now() - oldest.started : 0 };
  };
  const connect = pool.connect.bind(pool) as (callback: (err: Error | undefined, client?: pg.PoolClient, done?: unknown) => void) => void;
  let opening = 0;
  const wrapped = (callback?: (err: Error | undefined, client?: pg.PoolClient, done?: unknown) => void) => {
    const started = performance.now();
    const wait = { started };
    // Only a wait behind a full pool whose connections are all open is a queue. Opening a new
    // connection is not, nor waiting behind openings (capacity on its way): on a cold instance or a
    // busy host an opening takes 100 ms, and counting it refused the burst of buyers meanwhile.
    const full = pool.idleCount === 0 && pool.totalCount >= pool.options.max;
    const opens = pool.idleCount === 0 && !full;
    const queued = full && opening === 0;
    if (opens) opening++;
    if (queued) inProgress.add(wait);
    const answer = new Promise<pg.PoolClient>((resolve, reject) =>
      connect((err, client, done) => {
        if (opens) opening--;
        inProgress.delete(wait);
        const seconds = (performance.now() - started) / 1000;
        for (const listener of listeners) listener(seconds, queued);
        if (callback) callback(err, client, done);
        else if (err) reject(err);
        else resolve(client!);
      }),
    );
    if (callback) return undefined;
    return answer;
  };
  pool.connect = wrapped as typeof pool.connect;
  return { listeners, queue };
}

export interface MigrateOptions {
  /** Where "waiting for the lock" lines go. */
  log?: Pick<Logger, "info" | "warn">;
  /** Give up waiting for another instance's migration lock after this long (MIGRATION_LOCK_TIMEOUT_SECONDS). */
  lockTimeoutMs?: number;
}

/** Another instance held the migration lock for longer than MIGRATION_LOCK_TIMEOUT_SECONDS. */
export class MigrationLockTimeout extends Error {}

const LOCK_POLL_MS = 500;
const WAITING_LOG_EVERY_MS = 10_000;

/**
 * Applies the committed SQL migrations. On PostgreSQL an advisory lock lets many instances start at
 * once: one migrates, the others wait for it (saying so in the log every 10 s) and then find nothing
 * left to do. A lock held past the timeout (a stuck instance, a long manual session) is a clear error
 * instead of a start that never listens.
 */
export async function migrateDatabase(database: Database, options: MigrateOptions = {}): Promise<void> {
  if (database.kind !== "postgres") {
    await migratePglite(database.db as never, { migrationsFolder: MIGRATIONS });
    return;
  }
  const { log, lockTimeoutMs = 300_000 } = options;
  const client = await database.pool!.connect();
  let locked = false;
  try {
    // Building an index may outlast the connection's timeouts.
    await client.query("set statement_timeout = 0; set idle_in_transaction_session_timeout = 0");
    const started = Date.now();
    let loggedAt = -Infinity;
    while (!(locked = (await client.query<{ locked: boolean }>("select pg_try_advisory_lock($1) as locked", [MIGRATION_LOCK])).rows[0]!.locked)) {
      const waited = Date.now() - started;
      if (waited >= lockTimeoutMs) {
        throw new MigrationLockTimeout(
          `gave up after ${Math.round(waited / 1000)} s waiting for the migration lock (PostgreSQL advisory lock ${MIGRATION_LOCK}): another instance is migrating or stuck; see pg_locks, or raise MIGRATION_LOCK_TIMEOUT_SECONDS`,
        );
      }
      if (waited - loggedAt >= WAITING_LOG_EVERY_MS) {
        log?.warn({ waitedMs: waited, lock: MIGRATION_LOCK }, "waiting for the migration lock: another instance is migrating");
        loggedAt = waited;
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
    await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS });
  } finally {
    if (locked) await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    // Back to the connection's own timeouts (those it opened with) before others use it.
    await client.query("reset statement_timeout; reset idle_in_transaction_session_timeout").catch(() => {});
    client.release();
  }
}

/** The committed migrations this build knows and how many of them the database has applied. */
export async function migrationState(database: Database): Promise<{ known: number; applied: number }> {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS, "meta/_journal.json"), "utf8")) as { entries: unknown[] };
  let applied = 0;
  try {
    const result = await database.db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    applied = (result.rows as { n: number }[])[0]?.n ?? 0;
  } catch {
    applied = 0; // never migrated: the table does not exist
  }
  return { known: journal.entries.length, applied };
}

/** Creates the default organization and brand once (CONTRACT §27); safe to run from every instance. */
export async function ensureDefaultTenant(db: Db, now: Date): Promise<void> {
  await db
    .insert(schema.organizations)
    .values({ id: schema.DEFAULT_ORGANIZATION_ID, name: "Default organization", slug: "default", isDefault: true, createdAt: now })
    .onConflictDoNothing();
  await db
    .insert(schema.brands)
    .values({ id: schema.DEFAULT_BRAND_ID, organizationId: schema.DEFAULT_ORGANIZATION_ID, name: "Default brand", slug: "default", createdAt: now })
    .onConflictDoNothing();
}

export { sql };
