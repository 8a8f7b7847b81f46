import type { PGlite, Transaction } from "@electric-sql/pglite";
import { getTableColumns, is, SQL, type Table, getTableName } from "drizzle-orm";
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

const registered = new Map<string, HotStatement>();

export function hotStatement(name: string, text: string): HotStatement {
  const statement = { name, text };
  registered.set(name, statement);
  return statement;
}

/** Every hot statement of the modules loaded so far: test/db/hot-plans.test.ts checks each one's plan. */
export const hotStatements = (): HotStatement[] => [...registered.values()];

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
  try {
    if (driver instanceof pg.Pool || driver instanceof pg.Client) {
      const result = await driver.query({ name: statement.name, text: statement.text, values });
      return result.rows as Row[];
    }
    const result = await (driver as PGlite).query<Row>(statement.text, values);
    return result.rows;
  } catch (error) {
    // The log names the statement, never its values (src/lib/logger.ts logSafeError).
    if (error instanceof Error) (error as Error & { statement?: string }).statement ??= statement.name;
    throw error;
  }
}

const columnsByTable = new WeakMap<Table, [key: string, name: string, fallback: () => unknown][]>();

/** The columns an insert names: not those the database generates (an identity such as outbox_events.seq, which refuses a value). */
const insertedColumns = (table: Table) => Object.entries(getTableColumns(table)).filter(([, column]) => !column.generatedIdentity && !column.generated);

/**
 * Rows of a Drizzle table as JSON text for `jsonb_populate_recordset(null::<table>, $n::jsonb)`, so a
 * hot statement can insert typed rows of several tables without building SQL per call. Keys become
 * column names; an omitted column takes its Drizzle default (JS defaults only), else null.
 */
export function rowsAsJson<T extends Table>(table: T, rows: T["$inferInsert"][]): string {
  let columns = columnsByTable.get(table);
  if (!columns) {
    columns = insertedColumns(table).map(([key, column]) => {
      if (is(column.default, SQL)) throw new Error(`${column.name}: SQL defaults cannot go through rowsAsJson`);
      return [key, column.name, () => column.defaultFn?.() ?? column.default ?? null];
    });
    columnsByTable.set(table, columns);
  }
  const out = rows.map((row) => {
    const record: Record<string, unknown> = {};
    for (const [key, name, fallback] of columns) {
      const value = (row as Record<string, unknown>)[key];
      record[name] = value === undefined ? fallback() : value;
    }
    return record;
  });
  return JSON.stringify(out);
}

/**
 * `alias.column as "key", …` for every column of a Drizzle table, so a hot statement returns rows in
 * the table's `$inferSelect` shape (both drivers parse timestamps to Date, bigint cents to number).
 */
export function selectColumns(table: Table, alias: string): string {
  return Object.entries(getTableColumns(table))
    .map(([key, column]) => `${alias}.${column.name} as "${key}"`)
    .join(", ");
}

/**
 * `insert into <table> (<its columns>) select <its columns> from jsonb_populate_recordset(null::<table>, <param>)`:
 * the rows of rowsAsJson in one statement. The columns are named, so a column this code does not know
 * yet (a migration ahead of a running instance, as in a rolling deploy) takes its database default
 * instead of a NULL from the record.
 */
export function insertRowsSql(table: Table, param: string, alias?: string): string {
  const name = getTableName(table);
  const columns = insertedColumns(table)
    .map(([, column]) => `"${column.name}"`)
    .join(", ");
  return `insert into ${name}${alias ? ` as ${alias}` : ""} (${columns}) select ${columns} from jsonb_populate_recordset(null::${name}, ${param}::jsonb)`;
}
