// DATABASE_POOL_SIZE (issue 21 item 10): an instance opens at most that many PostgreSQL connections,
// and further queries wait for one instead of opening more. Runs when DATABASE_URL is a postgres:// URL.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../db/client.js";
import { loadConfig } from "./index.js";

const URL = process.env.DATABASE_URL;
const isPostgres = !!URL && /^postgres(ql)?:\/\//.test(URL);

describe.skipIf(!isPostgres)("DATABASE_POOL_SIZE", () => {
  let database: Database;
  const marker = `pool_size_${process.pid}_${Date.now()}`;
  beforeAll(async () => {
    const config = loadConfig({ DATABASE_URL: `${URL}${URL!.includes("?") ? "&" : "?"}application_name=${marker}`, DATABASE_POOL_SIZE: "3", CHECKOUT_TOKEN_SECRET: "s".repeat(32), ENCRYPTION_KEY: "ab".repeat(32) });
    expect(config.database.pool?.size).toBe(3);
    database = await openDatabase(config.database, "");
  });
  afterAll(() => database?.close());

  it("holds at most that many connections under 8 concurrent queries; the others wait", async () => {
    const pool = database.pool as import("pg").Pool;
    let mostWaiting = 0;
    const watch = setInterval(() => (mostWaiting = Math.max(mostWaiting, pool.waitingCount)), 5);
    // Each query sees how many connections of this pool the server has while it runs.
    const counts = await Promise.all(
      Array.from({ length: 8 }, () =>
        database.db.execute(sql`select (select count(*) from pg_stat_activity where application_name = ${marker})::int as n, pg_sleep(0.2)`).then((r) => (r as unknown as { rows: { n: number }[] }).rows[0]!.n),
      ),
    );
    clearInterval(watch);
    expect(Math.max(...counts)).toBe(3);
    expect(pool.totalCount).toBeLessThanOrEqual(3);
    expect(mostWaiting).toBeGreaterThan(0);
  });
});
