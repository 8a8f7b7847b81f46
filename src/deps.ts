import { Redis } from "ioredis";
import type { Logger } from "pino";
import { ConfigError, type Config } from "./config/index.js";
import type { Deps } from "./ctx.js";
import { ensureDefaultTenant, migrateDatabase, migrationState, openDatabase, type Database, type OpenOptions } from "./db/client.js";
import { MemoryRateLimitStore, RedisRateLimitStore, type RateLimitStore } from "./http/rate-limit.js";
import type { Clock } from "./lib/clock.js";
import { demoCrmProviders, demoPaymentProviders } from "./providers/demo/index.js";
import { realCrmProviders, realPaymentProviders } from "./providers/real.js";
import { createProviderRegistry } from "./providers/registry.js";
import { createOrchestration } from "./payments/routing/orchestration.js";
import { createDemoLedger } from "./payments/demo-ledger.js";

// With the offline queue off, a command sent before the connection is up fails at once and the
// process counts alone: wait a moment at start-up so the first requests already share counters.
const REDIS_START_WAIT_MS = 2_000;

/** Resolves when Redis is ready, fails to connect, or `ms` pass: start-up never hangs on Redis. */
function redisReady(redis: Redis, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off("ready", done);
      redis.off("error", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    redis.once("ready", done);
    redis.once("error", done);
  });
}

export interface Runtime {
  deps: Deps;
  rateLimitStore: RateLimitStore;
  redis: Redis | null;
  close(): Promise<void>;
}

/** MIGRATE_ON_START=false: the database must already hold every migration of this build. */
async function assertMigrated(database: Database): Promise<void> {
  const { known, applied } = await migrationState(database);
  if (applied < known) {
    await database.close();
    throw new ConfigError(`the database has ${applied} of this build's ${known} migrations and MIGRATE_ON_START is false: run \`npm run migrate\` first`);
  }
}

/** Opens what the process holds once: database (migrated, default tenant), Redis, providers. */
export async function createRuntime(config: Config, clock: Clock, log: Logger, options: OpenOptions = {}): Promise<Runtime> {
  const database = await openDatabase(config.database, config.dataDir, options);
  // The error's code and text only (never a statement or its values): "terminating connection due to administrator command".
  database.onConnectionLost?.((error) =>
    log.warn({ code: (error as { code?: string }).code, reason: error.message }, "database connection lost: what was using it fails (503), the pool opens a new one"),
  );
  if (config.migrateOnStart) await migrateDatabase(database, { log, lockTimeoutMs: config.migrationLockTimeoutMs });
  else await assertMigrated(database);
  await ensureDefaultTenant(database.db, new Date(clock.now()));

  let redis: Redis | null = null;
  let rateLimitStore: RateLimitStore = new MemoryRateLimitStore();
  if (config.redisUrl) {
    // Fail fast instead of queueing while Redis is away: the store then counts per process.
    redis = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 500, lazyConnect: false });
    redis.on("error", () => {});
    await redisReady(redis, REDIS_START_WAIT_MS);
    rateLimitStore = new RedisRateLimitStore(redis, log);
  }

  const providers = createProviderRegistry({ config, db: database.db, clock, log, demoPayment: demoPaymentProviders, demoCrm: demoCrmProviders, demoLedger: createDemoLedger, realPayment: realPaymentProviders, realCrm: realCrmProviders });
  const orchestration = createOrchestration({ settings: config.orchestration, clock, log, redis });
  const deps: Deps = { config, database, clock, log, providers, redis, orchestration };
  return {
    deps,
    rateLimitStore,
    redis,
    close: async () => {
      redis?.disconnect();
      await database.close();
    },
  };
}
