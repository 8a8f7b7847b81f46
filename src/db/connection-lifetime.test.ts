// PostgreSQL connections are replaced after their lifetime, so the statements prepared on them (and
// the generic plans PostgreSQL keeps for them) are planned again on the tables as they are now
// (src/db/client.ts). Runs when DATABASE_URL is a postgres:// URL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hotStatement, runHot } from "./hot.js";
import { openDatabase, type Database } from "./client.js";

const URL = process.env.DATABASE_URL;
const isPostgres = !!URL && /^postgres(ql)?:\/\//.test(URL);
const PROBE = hotStatement("connection_lifetime_probe", "select $1::int + 1 as n");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!isPostgres)("PostgreSQL connection lifetime", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ kind: "postgres", url: URL! }, "", { poolSize: 1, connectionLifetimeSeconds: 1 });
  });
  afterAll(() => database.close());

  const prepared = async () => {
    const { rows } = await (database.pool as import("pg").Pool).query("select name, pg_backend_pid() as pid from pg_prepared_statements right join (select 1) one on true");
    return { names: rows.map((r) => r.name).filter(Boolean), pid: rows[0].pid as number };
  };

  it("replaces a connection after its lifetime: a new backend, with no statement prepared yet", async () => {
    expect(await runHot(database.db, PROBE, [1])).toEqual([{ n: 2 }]);
    const before = await prepared();
    expect(before.names).toContain("connection_lifetime_probe");
    await sleep(1_300);
    // The expired connection is closed when this query releases it; the next one opens a new one.
    await prepared();
    const after = await prepared();
    expect(after.pid).not.toBe(before.pid);
    expect(after.names).not.toContain("connection_lifetime_probe");
    expect(await runHot(database.db, PROBE, [2])).toEqual([{ n: 3 }]);
  });
});
