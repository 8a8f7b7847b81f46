// `npm run migrate`: applies this build's migrations to DATABASE_URL (or the embedded database) and
// exits 0, or 1 with the reason. For deployments that migrate as a step before starting instances
// with MIGRATE_ON_START=false (docs/operations.md "Migrations").
import { ConfigError, loadConfig } from "./config/index.js";
import { MigrationLockTimeout, migrateDatabase, migrationState, openDatabase } from "./db/client.js";
import { createLogger } from "./lib/logger.js";

try {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const database = await openDatabase(config.database, config.dataDir);
  try {
    const before = await migrationState(database);
    await migrateDatabase(database, { log, lockTimeoutMs: config.migrationLockTimeoutMs });
    const after = await migrationState(database);
    log.info({ applied: after.applied - before.applied, total: after.applied, known: after.known }, `migrations: ${after.applied - before.applied} applied, ${after.applied} of ${after.known} in the database`);
    log.flush();
  } finally {
    await database.close();
  }
} catch (error) {
  const reason = error instanceof ConfigError || error instanceof MigrationLockTimeout ? error.message : String((error as Error).stack ?? error);
  process.stderr.write(`Migration failed: ${reason}\n`);
  process.exit(1);
}
