import closeWithGrace from "close-with-grace";
import { buildApp } from "./app.js";
import { ConfigError, loadConfig, type Config } from "./config/index.js";
import { describeTrustProxy } from "./config/trust-proxy.js";
import { productionRefusal } from "./config/unsafe.js";
import { MigrationLockTimeout, migrationState } from "./db/client.js";
import { createRuntime } from "./deps.js";
import { systemClock } from "./lib/clock.js";
import { createLogger } from "./lib/logger.js";
import { buildInfo } from "./metrics/build-info.js";
import { listenProxySocket, type ProxySocket } from "./http/proxy-socket.js";

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

// NODE_ENV=production with an unsafe setting nobody acknowledged (ALLOW_UNSAFE): refuse, saying which.
const refusal = productionRefusal(config);
if (refusal) {
  process.stderr.write(`Refusing to start: ${refusal}\n`);
  process.exit(1);
}

const log = createLogger(config.logLevel);
for (const warning of config.warnings) log.warn(warning);
// One line per unsafe setting (docs/configuration.md "Unsafe settings"), acknowledged or not.
for (const unsafe of config.unsafe) {
  const acknowledged = config.allowUnsafe.includes(unsafe.name);
  log.warn({ unsafe: unsafe.name, acknowledged }, `unsafe setting ${unsafe.name}${acknowledged ? " (acknowledged by ALLOW_UNSAFE)" : ""}: ${unsafe.warning}`);
}

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

// The start-up line an operator greps for: what runs, on which schema, with which risks.
const build = buildInfo(config.buildCommit);
const migrations = await migrationState(runtime.deps.database);
log.info(
  {
    version: build.version,
    commit: build.commit,
    node: process.version,
    database: config.database.kind,
    migrations: { applied: migrations.applied, known: migrations.known },
    paymentMode: config.paymentMode,
    trustProxy: describeTrustProxy(config.trustProxy),
    unsafe: config.unsafe.map((u) => u.name),
  },
  `starting checkout-service ${build.version} (${build.commit.slice(0, 12)}): ${migrations.applied} of ${migrations.known} migrations applied, unsafe settings: ${config.unsafe.map((u) => u.name).join(", ") || "none"}`,
);

// The drain, then up to 10 s for in-flight requests and jobs; past that the process exits 1 anyway.
let proxySocket: ProxySocket | null = null;
closeWithGrace({ delay: config.shutdownDrainMs + 10_000, logger: log }, async ({ signal, err }) => {
  // First of all the proxy's next connection fails, before it sends anything, and goes to another
  // instance; what it has already sent here is served (src/http/proxy-socket.ts).
  await proxySocket?.withdraw();
  // Draining, whatever made the process stop: the load balancer sees /readyz 503 and stops sending,
  // what still arrives is served, each answer closing its connection. After an error too (issue 31:
  // without the drain, kept-alive proxy connections held app.close() until the grace timeout killed it).
  app.drain();
  if (err) log.error({ err, drainMs: config.shutdownDrainMs }, "closing after an error: draining, /readyz answers 503");
  else log.info({ signal, drainMs: config.shutdownDrainMs }, "draining: /readyz answers 503");
  await new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs));
  log.info({ signal }, "shutting down: finishing in-flight requests");
  // Its connections are not the TCP listener's, which app.close() waits for: requests on them finish
  // first. It holds no idle one past the drain: nginx drops those itself (keepalive_timeout, 2 s).
  await proxySocket?.close();
  await app.close();
  await runtime.close();
  log.flush();
});

// The proxy's socket before the port: an instance the health check (TCP) sees ready takes proxy traffic.
if (config.proxySocket) {
  await app.ready();
  try {
    proxySocket = await listenProxySocket(app.server, config.proxySocket, (error) => log.error({ err: error }, "PROXY_SOCKET"));
  } catch (error) {
    log.error(`Refusing to start: ${(error as Error).message}`);
    log.flush();
    process.exit(1);
  }
  log.info(`listening on unix:${config.proxySocket} for the proxy`);
}
const address = await app.listen({ port: config.port, host: config.host });
const { port } = new URL(address);
log.info(`listening on http://${config.host}:${port}`);
// Links, mails and redirects use PUBLIC_BASE_URL, not the listening address: say where to go next (issue 33).
log.info(`open ${config.publicBaseUrl}: next ${config.publicBaseUrl}/login (the first account owns the default organization), /admin (back office), /docs (API reference)`);
