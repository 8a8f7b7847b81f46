// The PostgreSQL pool's settings (docs/configuration.md "Database pool"): every connection opens with
// the configured statement and idle-in-transaction timeouts, migrations run without them and hand the
// connection back with them, and every wait for a connection is reported (for /metrics).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabaseUrl, testEngine } from "../../test/support/database.js";
import { isDatabaseUnavailable } from "../http/errors.js";
import { migrateDatabase, openDatabase, sql, type Database } from "./client.js";
import { withTransaction } from "./transaction.js";

describe.runIf(testEngine === "postgres")("PostgreSQL pool", () => {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabaseUrl({ empty: true });
    drop = fresh.drop;
    const pool = { size: 2, statementTimeoutMs: 300, idleInTransactionTimeoutMs: 4_000 };
    database = await openDatabase({ kind: "postgres", url: fresh.url, pool }, "");
  });
  afterAll(async () => {
    await database.close();
    await drop();
  });

  const timeouts = async () => {
    const { rows } = await database.pool!.query("select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle");
    return rows[0];
  };

  it("opens every connection with the configured timeouts, migrations included", async () => {
    await migrateDatabase(database);
    expect(await timeouts()).toEqual({ statement: "300ms", idle: "4s" });
    // Both connections of the pool, the one the migration used among them.
    const clients = await Promise.all([database.pool!.connect(), database.pool!.connect()]);
    for (const client of clients) {
      const { rows } = await client.query("show statement_timeout");
      expect(rows[0].statement_timeout).toBe("300ms");
      client.release();
    }
  });

  it("cancels a statement that holds its connection longer than statement_timeout (answered 503)", async () => {
    const error = await database.pool!.query("select pg_sleep(5)").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "57014" });
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(await timeouts()).toEqual({ statement: "300ms", idle: "4s" });
  });

  it("reports each wait for a connection, however short", async () => {
    const waits: number[] = [];
    database.onConnectionWait!((seconds) => waits.push(seconds));
    const held = await Promise.all([database.pool!.connect(), database.pool!.connect()]);
    const queued = database.pool!.query("select 1 as one");
    expect(database.pool!.waitingCount).toBe(1);
    held.forEach((client) => client.release());
    expect((await queued).rows).toEqual([{ one: 1 }]);
    expect(waits).toHaveLength(3);
    expect(waits.every((s) => s >= 0 && s < 5)).toBe(true);
  });

  // Issue 31 item 5: a connection lost while a transaction holds it (a database restart between two
  // of its statements) emitted an "error" event nothing listened to: an uncaught exception that
  // closed the process. Now only that transaction fails (503), and the pool carries on.
  it("a connection lost while a transaction holds it fails that transaction only, with nothing uncaught", async () => {
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", record);
    try {
      const lost: Error[] = [];
      database.onConnectionLost!((error) => lost.push(error));
      const other = await database.pool!.connect();
      const failed = await withTransaction(database.db, async (tx) => {
        const { rows } = await tx.execute(sql`select pg_backend_pid() as pid`);
        // Terminated from another session while this transaction waits between statements.
        await other.query("select pg_terminate_backend($1)", [(rows[0] as { pid: number }).pid]);
        // Until the client has heard of it (on a busy machine that can take longer than any fixed wait).
        const deadline = Date.now() + 10_000;
        while (lost.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        await tx.execute(sql`select 1`);
      }).catch((error: unknown) => error);
      other.release();
      expect(isDatabaseUnavailable(failed)).toBe(true);
      expect(uncaught).toEqual([]);
      // Told once, though pg emits twice (the server's FATAL, then "Connection terminated").
      expect(lost.map((error) => (error as { code?: string }).code)).toEqual(["57P01"]);
      expect((await database.pool!.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
    } finally {
      process.off("uncaughtException", record);
    }
  });
});
