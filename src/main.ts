import closeWithGrace from "close-with-grace";
import { buildApp } from "./app.js";
import { ConfigError, loadConfig, type Config } from "./config/index.js";
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

const runtime = await createRuntime(config, systemClock, log);
const app = await buildApp(runtime.deps, { rateLimitStore: runtime.rateLimitStore });

closeWithGrace({ delay: 10_000, logger: log }, async ({ signal, err }) => {
  if (err) log.error({ err }, "closing after an error");
  else log.info({ signal }, "shutting down: finishing in-flight requests");
  await app.close();
  await runtime.close();
  log.flush();
});

const address = await app.listen({ port: config.port, host: config.host });
const { port } = new URL(address);
log.info(`listening on http://${config.host}:${port}`);
