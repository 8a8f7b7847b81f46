import closeWithGrace from "close-with-grace";
import { buildApp } from "./app.js";
import { ConfigError, loadConfig, type Config } from "./config/index.js";
import { MigrationLockTimeout } from "./db/client.js";
import { createRuntime } from "./deps.js";
import { systemClock } from "./lib/clock.js";
import { createLogger } from "./lib/logger.js";

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`Refusing to start: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const log = createLogger(config.logLevel);
for (const warning of config.warnings) log.warn(warning);

let runtime: Awaited<ReturnType<typeof createRuntime>>;
try {
  runtime = await createRuntime(config, systemClock, log);
} catch (error) {
  if (error instanceof ConfigError || error instanceof MigrationLockTimeout) {
    log.error(`Refusing to start: ${error.message}`);
    log.flush();
    process.exit(1);
  }
  throw error;
}
const app = await buildApp(runtime.deps, { rateLimitStore: runtime.rateLimitStore, jobs: config.workers === "off" ? "off" : "background" });
if (config.workers === "off") log.warn("WORKERS=off: no background job runs (no webhook, mail or receipt is sent, no refund reconciled, no housekeeping); restart without it to resume");

// The drain, then up to 10 s for in-flight requests and jobs; past that the process exits 1 anyway.
closeWithGrace({ delay: config.shutdownDrainMs + 10_000, logger: log }, async ({ signal, err }) => {
  if (err) log.error({ err }, "closing after an error");
  else {
    // Draining: the load balancer sees /readyz 503 and stops sending; what still arrives is served.
    app.drain();
    log.info({ signal, drainMs: config.shutdownDrainMs }, "draining: /readyz answers 503");
    await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
    log.info({ signal }, "shutting down: finishing in-flight requests");
  }
  await app.close();
  await runtime.close();
  log.flush();
});

const address = await app.listen({ port: config.port, host: config.host });
const { port } = new URL(address);
log.info(`listening on http://${config.host}:${port}`);
