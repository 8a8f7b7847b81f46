// Issue 23 (docs/performance.md "Every request stalled for 5 s"): a brand's settings read started on
// the pool by a request outside any transaction must never be what a transaction waits for. The
// transaction holds a pool connection; the read may be queued for that very connection. In the
// benchmark ten upsell accepts held all ten connections so, and every waiting request got a 503 at
// the pool's timeout. Here the pool has one connection, so the deadlock is certain, not a race.
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabaseUrl, testEngine } from "../../test/support/database.js";
import { loadConfig } from "../config/index.js";
import { ensureDefaultTenant, migrateDatabase, openDatabase, sql, type Database } from "../db/client.js";
import { DEFAULT_BRAND_ID } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { ManualClock } from "../lib/clock.js";
import { demoCrmProviders, demoPaymentProviders } from "./demo/index.js";
import { createDemoLedger } from "../payments/demo-ledger.js";
import { createProviderRegistry } from "./registry.js";

describe.runIf(testEngine === "postgres")("provider settings cache on a full pool", () => {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabaseUrl();
    drop = fresh.drop;
    // One connection; a deadlock shows as the pool's timeout error after 2 s instead of 5.
    database = await openDatabase({ kind: "postgres", url: fresh.url }, "", { poolSize: 1, connectionTimeoutMillis: 2_000 });
    await migrateDatabase(database);
    await ensureDefaultTenant(database.db, new Date());
  });
  afterAll(async () => {
    await database.close();
    await drop();
  });

  it("a transaction asking for a provider does not wait on a read queued for its own connection", async () => {
    const config = loadConfig({ DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: "x".repeat(32), ENCRYPTION_KEY: "ab".repeat(32) });
    const registry = createProviderRegistry({ config, db: database.db, clock: new ManualClock(), log: pino({ level: "silent" }), demoPayment: demoPaymentProviders, demoCrm: demoCrmProviders, demoLedger: createDemoLedger });

    // The settings are read to know whether the brand has live credentials (issue 33: a live payment, the legacy mode rule).
    let outside: Promise<boolean> | undefined;
    const inside = await withTransaction(database.db, async (tx) => {
      await tx.execute(sql`select 1`); // the transaction holds the pool's only connection
      // A request outside any transaction (initialize, pay, complete) starts the settings read: it
      // queues for a connection. Then the transaction (an upsell accept) asks for the same brand.
      outside = registry.hasLiveCredentials("vault_gateway_b", DEFAULT_BRAND_ID);
      return registry.hasLiveCredentials("vault_gateway_b", DEFAULT_BRAND_ID, tx);
    });
    expect(inside).toBe(false);
    expect(await outside!).toBe(false);
    expect(database.pool!.waitingCount).toBe(0);
  });
});
