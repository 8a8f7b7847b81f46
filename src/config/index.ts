// The one place that reads the environment (CONTRACT.md "Configuration"). Everything else gets a Config.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import path from "node:path";
import { FAULT_POINTS, type FaultPoint } from "../lib/fault-points.js";
import { POOL_DEFAULTS, type PoolSettings } from "./pool-settings.js";
import { ADMISSION_DEFAULTS, type AdmissionSettings } from "./admission-settings.js";
import { ORCHESTRATION_DEFAULTS, type OrchestrationSettings } from "./orchestration-settings.js";
import { parseTrustProxy, type TrustProxy } from "./trust-proxy.js";
import { parseAllowUnsafe, unsafeSettingsOf, type UnsafeSetting, type UnsafeSettingName } from "./unsafe.js";
import type { PaymentMode, RegistrationMode } from "./modes.js";

export type { PaymentMode, RegistrationMode };
export type DatabaseKind = "pglite-file" | "pglite-memory" | "postgres";

export interface SocialProviderConfig {
  clientId: string;
  clientSecret: string;
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
}

export interface Config {
  port: number;
  host: string;
  /** PROXY_SOCKET: a unix socket the reverse proxy on this machine connects to (src/http/proxy-socket.ts); null: TCP only. */
  proxySocket: string | null;
  publicBaseUrl: string;
  dataDir: string;
  /** `pool`: PostgreSQL only (DATABASE_POOL_SIZE and the per-connection timeouts). */
  database: { kind: DatabaseKind; url: string | null; pool?: PoolSettings };
  /** Signs every new checkout token and token webhook. */
  checkoutTokenSecret: string;
  /** CHECKOUT_TOKEN_SECRET_PREVIOUS: still verify tokens and still sign token webhooks during a rotation. */
  checkoutTokenSecretsPrevious: string[];
  /** 32 raw bytes for AES-256-GCM: every new value is sealed with it. */
  encryptionKey: Buffer;
  /** ENCRYPTION_KEY then the keys of ENCRYPTION_KEY_PREVIOUS: what values written before a rotation open with. */
  encryptionKeyring: Buffer[];
  redisUrl: string | null;
  rateLimit: { anonymous: number; authenticated: number; apiKey: number };
  registrationMode: RegistrationMode;
  upsellSessionTtlSeconds: number;
  allowPrivateWebhookUrls: boolean;
  /** TRUST_PROXY (src/config/trust-proxy.ts); Fastify gets it through fastifyTrustProxy. */
  trustProxy: TrustProxy;
  /** `transport`: MAIL_TRANSPORT; `log` writes whole mails (magic links) to the log, for development only. */
  smtp: { url: string | null; from: string; transport: "smtp" | "log" };
  social: { social_a: SocialProviderConfig | null; social_b: SocialProviderConfig | null };
  hosting: { apiUrl: string | null; apiToken: string | null; projectId: string | null; aRecord: string; cnameTarget: string };
  paymentMode: PaymentMode;
  checkoutCompletionGraceSeconds: number;
  declineLimit: number;
  /** Distinct declined cards per client address per window (issue 36 item 7); default 10, or DECLINE_LIMIT when that is higher. */
  declineAddressCardLimit: number;
  declineWindowSeconds: number;
  /** DNS_SERVERS as `Resolver.setServers` takes them (`1.2.3.4`, `1.2.3.4:5353`, `[::1]:53`); null = the system's. */
  dnsServers: string[] | null;
  /** How long a call to the hosting platform or a marketing integration may take (CONTRACT: 10 s). */
  integrationTimeoutMs: number;
  /** WAIT_FOR_FIRST_MS: how long an identical repeat waits for the request holding its claim (claimOrWait) before 409 in progress. */
  waitForFirstMs: number;
  session: { idleMinutes: number; maxHours: number };
  /** RETENTION_DAYS: delivered webhooks, dispatched outbox events and sent mails older than this are deleted. */
  retentionDays: number;
  /** SHUTDOWN_DRAIN_SECONDS: after SIGTERM, how long /readyz answers 503 while requests are still served. */
  shutdownDrainMs: number;
  /** MIGRATE_ON_START: apply migrations at start (default); false: refuse to start on a database behind this build (run `npm run migrate`). */
  migrateOnStart: boolean;
  /** WORKERS: `off` runs no background job (a restored copy sends nothing until told); docs/operations.md "Restore drill". */
  workers: "on" | "off";
  /** MIGRATION_LOCK_TIMEOUT_SECONDS: how long a start waits for another instance's migrations. */
  migrationLockTimeoutMs: number;
  logLevel: string;
  /** FAULT_POINT: a named crash point for the fault tests (src/lib/fault-points.ts); null in production. */
  faultPoint: FaultPoint | null;
  /** BUILD_COMMIT: the commit this build was made from (checkout_build_info); null: read from the package or git. */
  buildCommit: string | null;
  /** Warnings to log once the logger exists (generated secrets, embedded database). */
  warnings: string[];
  /** ADMISSION_*: when requests are refused as overload (src/http/admission.ts). */
  admission: AdmissionSettings;
  /** CIRCUIT_* and SUCCESS_RATE_*: provider health and success-rate routing (src/payments/routing/). */
  orchestration: OrchestrationSettings;
  /** NODE_ENV=production: the unsafe settings refuse to start unless ALLOW_UNSAFE names them. */
  production: boolean;
  /** Settings unsafe in production, each logged as a warning at start (src/config/unsafe.ts). */
  unsafe: UnsafeSetting[];
  /** ALLOW_UNSAFE: the unsafe settings the operator acknowledged. */
  allowUnsafe: UnsafeSettingName[];
}

/** A configuration the process must refuse to start with; main.ts prints it and exits non-zero. */
export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`);
  return value;
}

/**
 * Requests per minute: per client address, per session, per merchant API key. A key's budget is at
 * least a session's (CONTRACT §41): by default the larger of 300 and RATE_LIMIT_AUTHENTICATED, and a
 * smaller RATE_LIMIT_API_KEY refuses to start.
 */
function rateLimitsOf(env: Env): Config["rateLimit"] {
  const anonymous = integer(env, "RATE_LIMIT_ANONYMOUS", 20, 1);
  const authenticated = integer(env, "RATE_LIMIT_AUTHENTICATED", 100, 1);
  return { anonymous, authenticated, apiKey: integer(env, "RATE_LIMIT_API_KEY", Math.max(300, authenticated), authenticated) };
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true" || raw === "1") return true;
  if (raw === "false" || raw === "0") return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!values.includes(raw as T)) throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${raw}"`);
  return raw as T;
}

function url(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === "") return null;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: "${raw}"`);
  }
  return raw.replace(/\/+$/, "");
}

/** DNS_SERVERS: comma-separated `host[:port]`, where host is an IP address (IPv6 in brackets with a port). */
function dnsServersOf(env: Env): string[] | null {
  const raw = env.DNS_SERVERS;
  if (raw === undefined || raw.trim() === "") return null;
  return raw.split(",").map((entry) => {
    const s = entry.trim();
    const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(s);
    const plain = /^([^:]+)(?::(\d{1,5}))?$/.exec(s);
    const [host, port] = bracketed ? [bracketed[1]!, bracketed[2]] : isIP(s) === 6 ? [s, undefined] : plain ? [plain[1]!, plain[2]] : ["", undefined];
    if (!isIP(host) || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
      throw new ConfigError(`DNS_SERVERS must be comma-separated IP addresses with an optional :port, got "${s}"`);
    }
    return s;
  });
}

function hostingOf(env: Env): Config["hosting"] {
  const aRecord = env.HOSTING_A_RECORD || "76.76.21.21";
  if (isIP(aRecord) !== 4) throw new ConfigError(`HOSTING_A_RECORD must be an IPv4 address, got "${aRecord}"`);
  const cnameTarget = (env.HOSTING_CNAME_TARGET || "cname.vercel-dns.com").toLowerCase().replace(/\.$/, "");
  if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/.test(cnameTarget)) {
    throw new ConfigError(`HOSTING_CNAME_TARGET must be a host name, got "${env.HOSTING_CNAME_TARGET}"`);
  }
  return { apiUrl: url(env, "HOSTING_API_URL"), apiToken: env.HOSTING_API_TOKEN || null, projectId: env.HOSTING_PROJECT_ID || null, aRecord, cnameTarget };
}

function databaseOf(env: Env): Config["database"] {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === "") return { kind: "pglite-file", url: null };
  if (raw === "memory://") return { kind: "pglite-memory", url: raw };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    const pool: PoolSettings = {
      size: integer(env, "DATABASE_POOL_SIZE", POOL_DEFAULTS.size, 1),
      statementTimeoutMs: integer(env, "DATABASE_STATEMENT_TIMEOUT_MS", POOL_DEFAULTS.statementTimeoutMs),
      idleInTransactionTimeoutMs: integer(env, "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS", POOL_DEFAULTS.idleInTransactionTimeoutMs),
    };
    return { kind: "postgres", url: raw, pool };
  }
  throw new ConfigError(`DATABASE_URL must be unset, memory:// or a postgres:// URL, got "${raw}"`);
}

function decodeKey(raw: string, name: string): Buffer {
  const hex = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, "hex") : null;
  const key = hex ?? Buffer.from(raw, "base64");
  if (key.length !== 32) throw new ConfigError(`${name} must be 32 bytes, base64 or hex encoded (got ${key.length} bytes)`);
  return key;
}

/**
 * Secrets unset on the embedded database are generated once and kept under DATA_DIR (mode 0600),
 * so restarts keep issued tokens and encrypted settings valid. With PostgreSQL there is no safe
 * place to invent them: several processes would each invent their own, so we refuse to start.
 */
function secretOf(
  env: Env,
  name: "CHECKOUT_TOKEN_SECRET" | "ENCRYPTION_KEY",
  database: Config["database"],
  dataDir: string,
  warnings: string[],
): string {
  const raw = env[name];
  if (raw !== undefined && raw !== "") return raw;
  if (database.kind === "postgres") {
    throw new ConfigError(`${name} must be set when DATABASE_URL points at PostgreSQL (every instance must share it)`);
  }
  const generated = name === "CHECKOUT_TOKEN_SECRET" ? randomBytes(48).toString("base64url") : randomBytes(32).toString("base64");
  if (database.kind === "pglite-memory") return generated;
  const file = path.join(dataDir, "secrets.json");
  const kept: Record<string, string> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  if (!kept[name]) {
    kept[name] = generated;
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(kept, null, 2), { mode: 0o600 });
    warnings.push(`${name} was not set: generated one and kept it in ${file}. Set it explicitly in production.`);
  }
  return kept[name];
}

function socialOf(env: Env, prefix: "SOCIAL_A" | "SOCIAL_B"): SocialProviderConfig | null {
  const clientId = env[`${prefix}_CLIENT_ID`];
  if (!clientId) return null;
  const required = (suffix: string) => {
    const value = url(env, `${prefix}_${suffix}`);
    if (!value) throw new ConfigError(`${prefix}_${suffix} must be set when ${prefix}_CLIENT_ID is set`);
    return value;
  };
  return {
    clientId,
    clientSecret: env[`${prefix}_CLIENT_SECRET`] ?? "",
    authorizationUrl: required("AUTHORIZATION_URL"),
    tokenUrl: required("TOKEN_URL"),
    userinfoUrl: required("USERINFO_URL"),
  };
}

export function loadConfig(env: Env = process.env): Config {
  const warnings: string[] = [];
  const port = integer(env, "PORT", 3000);
  if (port > 65535) throw new ConfigError(`PORT must be at most 65535, got ${port}`);
  const host = env.HOST || "127.0.0.1";
  const proxySocket = env.PROXY_SOCKET?.trim() || null;
  // 107 bytes: a unix socket address holds at most that much path (sun_path, with its NUL).
  if (proxySocket !== null && (!path.isAbsolute(proxySocket) || Buffer.byteLength(proxySocket) > 107)) {
    throw new ConfigError(`PROXY_SOCKET must be an absolute path of at most 107 bytes, got "${env.PROXY_SOCKET}"`);
  }
  const dataDir = path.resolve(env.DATA_DIR || "./data");
  const database = databaseOf(env);
  if (database.kind === "pglite-file") {
    warnings.push(`Using the embedded database under ${dataDir}: fine for trying and developing; run production on PostgreSQL (DATABASE_URL).`);
  }

  const checkoutTokenSecret = secretOf(env, "CHECKOUT_TOKEN_SECRET", database, dataDir, warnings);
  if (checkoutTokenSecret.length < 32) throw new ConfigError("CHECKOUT_TOKEN_SECRET must be at least 32 characters");
  const checkoutTokenSecretsPrevious = (env.CHECKOUT_TOKEN_SECRET_PREVIOUS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  checkoutTokenSecretsPrevious.forEach((s, i) => {
    if (s.length < 32) throw new ConfigError(`CHECKOUT_TOKEN_SECRET_PREVIOUS (secret ${i + 1}) must be at least 32 characters`);
  });
  if (checkoutTokenSecretsPrevious.includes(checkoutTokenSecret)) {
    throw new ConfigError("CHECKOUT_TOKEN_SECRET_PREVIOUS must not contain the current CHECKOUT_TOKEN_SECRET");
  }
  const encryptionKey = decodeKey(secretOf(env, "ENCRYPTION_KEY", database, dataDir, warnings), "ENCRYPTION_KEY");
  const previousKeys = (env.ENCRYPTION_KEY_PREVIOUS ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "")
    .map((k, i) => decodeKey(k, `ENCRYPTION_KEY_PREVIOUS (key ${i + 1})`));
  if (previousKeys.some((k) => k.equals(encryptionKey))) throw new ConfigError("ENCRYPTION_KEY_PREVIOUS must not contain the current ENCRYPTION_KEY");

  const publicBaseUrl = url(env, "PUBLIC_BASE_URL") ?? `http://localhost:${port}`;
  const paymentMode = oneOf(env, "PAYMENT_MODE", ["test", "live"] as const, "test");
  const faultPoint = env.FAULT_POINT ? oneOf(env, "FAULT_POINT", FAULT_POINTS, FAULT_POINTS[0]) : null;
  if (faultPoint && paymentMode === "live") throw new ConfigError("FAULT_POINT is for crash tests and cannot be set with PAYMENT_MODE=live");
  if (env.SUCCESS_RATE_WINDOW !== undefined) warnings.push("SUCCESS_RATE_WINDOW is no longer read: success rates age by halves (SUCCESS_RATE_HALF_LIFE, SUCCESS_RATE_TRAFFIC_HALF_LIFE; docs/configuration.md).");
  if (faultPoint) warnings.push(`FAULT_POINT=${faultPoint}: this process kills itself when it reaches that point (crash tests only).`);
  const dnsServers = dnsServersOf(env);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  if (typeof trustProxy === "object" && !Array.isArray(trustProxy)) throw new ConfigError(trustProxy.error);
  const allowUnsafe = parseAllowUnsafe(env.ALLOW_UNSAFE);
  if (!Array.isArray(allowUnsafe)) throw new ConfigError(allowUnsafe.error);
  const smtp = { url: url(env, "SMTP_URL"), from: env.MAIL_FROM || "no-reply@localhost", transport: oneOf(env, "MAIL_TRANSPORT", ["smtp", "log"] as const, "smtp") };
  const registrationMode = oneOf(env, "REGISTRATION_MODE", ["open", "disabled", "maintenance"] as const, "open");
  const production = env.NODE_ENV === "production";
  const unsafe = unsafeSettingsOf({
    production,
    postgres: database.kind === "postgres",
    paymentMode,
    registrationMode,
    smtpUrl: smtp.url,
    mailTransport: smtp.transport,
    trustProxy,
    host,
  });

  return {
    port,
    host,
    proxySocket,
    publicBaseUrl,
    dataDir,
    database,
    checkoutTokenSecret,
    checkoutTokenSecretsPrevious,
    encryptionKey,
    encryptionKeyring: [encryptionKey, ...previousKeys],
    redisUrl: env.REDIS_URL || null,
    rateLimit: rateLimitsOf(env),
    registrationMode,
    upsellSessionTtlSeconds: integer(env, "UPSELL_SESSION_TTL_SECONDS", 1800, 1),
    allowPrivateWebhookUrls: boolean(env, "ALLOW_PRIVATE_WEBHOOK_URLS", false),
    trustProxy,
    smtp,
    social: { social_a: socialOf(env, "SOCIAL_A"), social_b: socialOf(env, "SOCIAL_B") },
    hosting: hostingOf(env),
    paymentMode,
    checkoutCompletionGraceSeconds: integer(env, "CHECKOUT_COMPLETION_GRACE_SECONDS", 3600),
    declineLimit: integer(env, "DECLINE_LIMIT", 5, 1),
    declineAddressCardLimit: integer(env, "DECLINE_ADDRESS_CARD_LIMIT", Math.max(10, integer(env, "DECLINE_LIMIT", 5, 1)), 1),
    declineWindowSeconds: integer(env, "DECLINE_WINDOW_SECONDS", 600, 1),
    dnsServers,
    integrationTimeoutMs: integer(env, "INTEGRATION_TIMEOUT_MS", 10_000, 1),
    waitForFirstMs: integer(env, "WAIT_FOR_FIRST_MS", 10_000),
    session: { idleMinutes: integer(env, "SESSION_IDLE_MINUTES", 30, 1), maxHours: integer(env, "SESSION_MAX_HOURS", 12, 1) },
    retentionDays: integer(env, "RETENTION_DAYS", 30, 1),
    migrateOnStart: boolean(env, "MIGRATE_ON_START", true),
    shutdownDrainMs: integer(env, "SHUTDOWN_DRAIN_SECONDS", 5, 0) * 1000,
    workers: oneOf(env, "WORKERS", ["on", "off"] as const, "on"),
    migrationLockTimeoutMs: integer(env, "MIGRATION_LOCK_TIMEOUT_SECONDS", 300, 1) * 1000,
    logLevel: oneOf(env, "LOG_LEVEL", ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const, "info"),
    faultPoint,
    buildCommit: env.BUILD_COMMIT?.trim() || null,
    warnings,
    admission: admissionOf(env),
    orchestration: orchestrationOf(env),
    production,
    unsafe,
    allowUnsafe,
  };
}

function orchestrationOf(env: Env): OrchestrationSettings {
  const d = ORCHESTRATION_DEFAULTS;
  const failurePercent = integer(env, "CIRCUIT_FAILURE_PERCENT", d.circuit.failurePercent, 1);
  if (failurePercent > 100) throw new ConfigError(`CIRCUIT_FAILURE_PERCENT must be at most 100, got "${env.CIRCUIT_FAILURE_PERCENT}"`);
  const halfLife = integer(env, "SUCCESS_RATE_HALF_LIFE", d.successRates.halfLife, 1);
  if (halfLife > 10_000) throw new ConfigError(`SUCCESS_RATE_HALF_LIFE must be at most 10000, got "${env.SUCCESS_RATE_HALF_LIFE}"`);
  const trafficHalfLife = integer(env, "SUCCESS_RATE_TRAFFIC_HALF_LIFE", d.successRates.trafficHalfLife, 10);
  if (trafficHalfLife > 1_000_000) throw new ConfigError(`SUCCESS_RATE_TRAFFIC_HALF_LIFE must be at most 1000000, got "${env.SUCCESS_RATE_TRAFFIC_HALF_LIFE}"`);
  const minAttempts = integer(env, "SUCCESS_RATE_MIN_ATTEMPTS", d.successRates.minAttempts, 1);
  if (minAttempts > 10_000) throw new ConfigError(`SUCCESS_RATE_MIN_ATTEMPTS must be at most 10000, got "${env.SUCCESS_RATE_MIN_ATTEMPTS}"`);
  return {
    circuit: {
      failureThreshold: integer(env, "CIRCUIT_FAILURE_THRESHOLD", d.circuit.failureThreshold, 1),
      failurePercent,
      windowMs: integer(env, "CIRCUIT_WINDOW_SECONDS", d.circuit.windowMs / 1000, 1) * 1000,
      openMs: integer(env, "CIRCUIT_OPEN_SECONDS", d.circuit.openMs / 1000, 1) * 1000,
    },
    successRates: { halfLife, trafficHalfLife, minAttempts },
  };
}

function admissionOf(env: Env): AdmissionSettings {
  const d = ADMISSION_DEFAULTS;
  return {
    queue: {
      targetMs: integer(env, "ADMISSION_QUEUE_TARGET_MS", d.queue.targetMs),
      intervalMs: integer(env, "ADMISSION_QUEUE_INTERVAL_MS", d.queue.intervalMs, 10),
    },
    newCheckout: {
      poolWaitMs: integer(env, "ADMISSION_NEW_POOL_WAIT_MS", d.newCheckout.poolWaitMs),
      loopDelayMs: integer(env, "ADMISSION_NEW_LOOP_DELAY_MS", d.newCheckout.loopDelayMs),
    },
    started: {
      poolWaitMs: integer(env, "ADMISSION_STARTED_POOL_WAIT_MS", d.started.poolWaitMs),
      loopDelayMs: integer(env, "ADMISSION_STARTED_LOOP_DELAY_MS", d.started.loopDelayMs),
    },
    retryAfterSeconds: integer(env, "ADMISSION_RETRY_AFTER_SECONDS", d.retryAfterSeconds, 1),
  };
}
