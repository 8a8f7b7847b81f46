// Issue 21 item 5, on PostgreSQL with the built process: `npm run migrate` (dist/migrate.js) applies
// the migrations and exits 0, again with nothing to do; MIGRATE_ON_START=false refuses a database
// behind the build and starts on a migrated one; a start waiting for another instance's migration
// lock says so in its log and gives up with a clear error after MIGRATION_LOCK_TIMEOUT_SECONDS.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLUSTER_ENCRYPTION_KEY, CLUSTER_TOKEN_SECRET, createDatabase } from "../cluster/cluster.js";
import { runToExit, startServer } from "../support/process.js";

const postgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? "");
if (!postgres) console.warn("test/process/migrations: skipped, DATABASE_URL is not a postgres:// URL");

describe.skipIf(!postgres)("migrations as an operator runs them", () => {
  let database: Awaited<ReturnType<typeof createDatabase>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    database = await createDatabase(process.env.DATABASE_URL!);
    env = { DATABASE_URL: database.url, CHECKOUT_TOKEN_SECRET: CLUSTER_TOKEN_SECRET, ENCRYPTION_KEY: CLUSTER_ENCRYPTION_KEY, LOG_LEVEL: "info" };
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("refuses to start with MIGRATE_ON_START=false before `npm run migrate`, which migrates once and then starts it", async () => {
    const refused = await runToExit({ ...env, MIGRATE_ON_START: "false" });
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/Refusing to start: the database has 0 of this build's \d+ migrations and MIGRATE_ON_START is false: run `npm run migrate` first/);

    const first = await runToExit(env, "dist/migrate.js");
    expect(first.code, first.output).toBe(0);
    const known = Number(/(\d+) applied, \1 of \1 in the database/.exec(first.output)?.[1]);
    expect(known).toBeGreaterThan(10);
    const again = await runToExit(env, "dist/migrate.js");
    expect(again.code).toBe(0);
    expect(again.output).toContain(`0 applied, ${known} of ${known} in the database`);

    const server = await startServer({ ...env, MIGRATE_ON_START: "false" });
    expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200);
    expect(await server.stop()).toBe(0);
  });

  it("waits for another instance's migration lock, says so, and gives up after the timeout", async () => {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query("select pg_advisory_lock(727272)");
      const started = Date.now();
      const stuck = await runToExit({ ...env, MIGRATION_LOCK_TIMEOUT_SECONDS: "2" });
      expect(stuck.code).toBe(1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
      expect(stuck.output).toContain("waiting for the migration lock: another instance is migrating");
      expect(stuck.output).toMatch(/Refusing to start: gave up after 2 s waiting for the migration lock \(PostgreSQL advisory lock 727272\)/);
      const migrate = await runToExit({ ...env, MIGRATION_LOCK_TIMEOUT_SECONDS: "1" }, "dist/migrate.js");
      expect(migrate.code).toBe(1);
      expect(migrate.output).toContain("Migration failed: gave up after");
    } finally {
      await holder.end();
    }
    // Lock released: a start goes through.
    const server = await startServer(env);
    expect(await server.stop()).toBe(0);
  });
});
