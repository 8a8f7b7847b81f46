// The environment every service under test gets (the brief's item 5).
import { randomBytes } from "node:crypto";

// Explicit secrets, so the runner can sign checkout tokens itself and nothing is generated on disk.
export const TOKEN_SECRET = randomBytes(48).toString("base64url");
export const ENCRYPTION_KEY = randomBytes(32).toString("base64");

/** `url` set: PostgreSQL; unset: PGlite under `dataDir` (always a fresh temporary directory). */
export function serviceEnv({ url, dataDir }) {
  return {
    DATA_DIR: dataDir,
    ...(url ? { DATABASE_URL: url } : {}),
    CHECKOUT_TOKEN_SECRET: TOKEN_SECRET,
    ENCRYPTION_KEY,
    // Far above what the load generator sends: we measure the checkout, not the limiter's refusals.
    RATE_LIMIT_ANONYMOUS: "100000000",
    RATE_LIMIT_AUTHENTICATED: "100000000",
    // Realistic: one log line per request, as in production.
    LOG_LEVEL: "info",
    NODE_ENV: "production",
    // Production refuses to start with these (src/main.ts): the benchmark pays with demo cards,
    // registers its own owner and sends no mail, on a database it drops afterwards.
    ALLOW_UNSAFE: "payment_mode_test,registration_open,smtp_unset",
    // Stopped between runs, never behind a load balancer: no drain to wait for.
    SHUTDOWN_DRAIN_SECONDS: "0",
    // Settings to try, passed on from the runner's environment: admission thresholds (docs/operations.md
    // "Overload"), WORKERS=off (no background jobs: docs/performance.md, "The background work each order causes").
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => key.startsWith("ADMISSION_") || key === "WORKERS")),
  };
}
