import type { PGlite, Transaction } from "@electric-sql/pglite";
import pg from "pg";
import type { Db } from "./client.js";

/**
 * A statement on a hot path (initialize, complete), written as plain SQL once. Drizzle rebuilds its
 * SQL text on every call, which cost about a third of initialize's CPU (docs/performance.md); these
 * go to the driver as they are: a named prepared statement on PostgreSQL (parsed and planned once
 * per connection), a parameterised query on PGlite. Keep them few: everything else uses Drizzle.
 */
export interface HotStatement {
  readonly name: string;
  readonly text: string;
}

export const hotStatement = (name: string, text: string): HotStatement => ({ name, text });

type Driver = pg.Pool | pg.PoolClient | PGlite | Transaction;

/** The driver under a Drizzle handle: `$client` on the client, `session.client` in a transaction. */
function driverOf(db: Db): Driver {
  const handle = db as unknown as { $client?: Driver; session?: { client?: Driver } };
  const driver = handle.$client ?? handle.session?.client;
  if (!driver) throw new Error("no driver behind this database handle");
  return driver;
}

/**
 * Runs a hot statement with positional values ($1, $2, …). jsonb values must be passed as JSON text
 * with a `::jsonb` cast in the SQL (the pg driver would turn a JS array into a PostgreSQL array).
 */
export async function runHot<Row>(db: Db, statement: HotStatement, values: unknown[]): Promise<Row[]> {
  const driver = driverOf(db);
  if (driver instanceof pg.Pool || driver instanceof pg.Client) {
    const result = await driver.query({ name: statement.name, text: statement.text, values });
    return result.rows as Row[];
  }
  const result = await (driver as PGlite).query<Row>(statement.text, values);
  return result.rows;
}
