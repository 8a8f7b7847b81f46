// CONTRACT.md "Configuration": defaults, generated secrets, and the refusals to start.
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./index.js";
import { fastifyTrustProxy } from "./trust-proxy.js";
import { productionRefusal } from "./unsafe.js";

const SECRET = "x".repeat(32);

describe("loadConfig", () => {
  it("has the contract's defaults", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "cfg-"));
    const config = loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      proxySocket: null,
      publicBaseUrl: "http://localhost:3000",
      database: { kind: "pglite-file", url: null },
      rateLimit: { anonymous: 20, authenticated: 100, apiKey: 300 },
      registrationMode: "open",
      upsellSessionTtlSeconds: 1800,
      allowPrivateWebhookUrls: false,
      trustProxy: false,
      paymentMode: "test",
      checkoutCompletionGraceSeconds: 3600,
      retentionDays: 30,
      declineLimit: 5,
      declineAddressCardLimit: 10,
      declineWindowSeconds: 600,
      session: { idleMinutes: 30, maxHours: 12 },
      logLevel: "info",
    });
    expect(config.hosting).toMatchObject({ aRecord: "76.76.21.21", cnameTarget: "cname.vercel-dns.com", apiUrl: null });
  });

  it("generates secrets once on the embedded database, keeps them under DATA_DIR with mode 0600, and warns", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "cfg-"));
    const first = loadConfig({ DATA_DIR: dir });
    expect(first.checkoutTokenSecret.length).toBeGreaterThanOrEqual(32);
    expect(first.encryptionKey.length).toBe(32);
    expect(first.warnings.some((w) => w.includes("CHECKOUT_TOKEN_SECRET"))).toBe(true);
    const again = loadConfig({ DATA_DIR: dir });
    expect(again.checkoutTokenSecret).toBe(first.checkoutTokenSecret);
    expect(again.encryptionKey.equals(first.encryptionKey)).toBe(true);
    const file = path.join(dir, "secrets.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8")).CHECKOUT_TOKEN_SECRET).toBe(first.checkoutTokenSecret);
  });

  it("refuses PostgreSQL without the secrets", () => {
    expect(() => loadConfig({ DATABASE_URL: "postgres://db/x" })).toThrow(/CHECKOUT_TOKEN_SECRET must be set/);
    expect(() => loadConfig({ DATABASE_URL: "postgres://db/x", CHECKOUT_TOKEN_SECRET: SECRET })).toThrow(/ENCRYPTION_KEY must be set/);
  });

  it("reads the PostgreSQL pool size and per-connection timeouts, and refuses a pool of none", () => {
    const postgres = { DATABASE_URL: "postgres://db/x", CHECKOUT_TOKEN_SECRET: SECRET, ENCRYPTION_KEY: "ab".repeat(32) };
    expect(loadConfig(postgres).database.pool).toEqual({ size: 10, statementTimeoutMs: 15_000, idleInTransactionTimeoutMs: 15_000 });
    const set = loadConfig({ ...postgres, DATABASE_POOL_SIZE: "25", DATABASE_STATEMENT_TIMEOUT_MS: "0", DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: "60000" });
    expect(set.database.pool).toEqual({ size: 25, statementTimeoutMs: 0, idleInTransactionTimeoutMs: 60_000 });
    expect(() => loadConfig({ ...postgres, DATABASE_POOL_SIZE: "0" })).toThrow(/DATABASE_POOL_SIZE must be an integer >= 1/);
    expect(() => loadConfig({ ...postgres, DATABASE_STATEMENT_TIMEOUT_MS: "5s" })).toThrow(/DATABASE_STATEMENT_TIMEOUT_MS/);
  });

  it("gives an API key a budget of at least a session's (CONTRACT §41)", () => {
    const memory = { DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: SECRET, ENCRYPTION_KEY: "ab".repeat(32) };
    expect(loadConfig({ ...memory, RATE_LIMIT_API_KEY: "1000" }).rateLimit).toEqual({ anonymous: 20, authenticated: 100, apiKey: 1000 });
    expect(loadConfig({ ...memory, RATE_LIMIT_AUTHENTICATED: "500" }).rateLimit.apiKey).toBe(500);
    expect(() => loadConfig({ ...memory, RATE_LIMIT_AUTHENTICATED: "500", RATE_LIMIT_API_KEY: "400" })).toThrow(/RATE_LIMIT_API_KEY must be an integer >= 500/);
  });

  it("refuses a short token secret and a malformed encryption key", () => {
    expect(() => loadConfig({ DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: "short" })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: SECRET, ENCRYPTION_KEY: "abc" })).toThrow(/32 bytes/);
  });

  it("accepts a hex or base64 encryption key", () => {
    const hex = loadConfig({ DATABASE_URL: "memory://", ENCRYPTION_KEY: "ab".repeat(32) });
    expect(hex.encryptionKey.length).toBe(32);
    const b64 = loadConfig({ DATABASE_URL: "memory://", ENCRYPTION_KEY: Buffer.alloc(32, 1).toString("base64") });
    expect(b64.encryptionKey.equals(Buffer.alloc(32, 1))).toBe(true);
  });

  it("refuses values outside their domain, naming the variable", () => {
    expect(() => loadConfig({ DATABASE_URL: "memory://", PORT: "abc" })).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: "memory://", REGISTRATION_MODE: "closed" })).toThrow(/REGISTRATION_MODE/);
    expect(() => loadConfig({ DATABASE_URL: "memory://", PAYMENT_MODE: "prod" })).toThrow(/PAYMENT_MODE/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: "memory://", TRUST_PROXY: "yes" })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ DATABASE_URL: "memory://", RETENTION_DAYS: "0" })).toThrow(/RETENTION_DAYS/);
    expect(() => loadConfig({ DATABASE_URL: "memory://", RETENTION_DAYS: "7.5" })).toThrow(/RETENTION_DAYS/);
    expect(() => loadConfig({ DATABASE_URL: "memory://", SOCIAL_A_CLIENT_ID: "id" })).toThrow(/SOCIAL_A_AUTHORIZATION_URL/);
    expect(() => loadConfig({ DATABASE_URL: "memory://", PROXY_SOCKET: "run/proxy.sock" })).toThrow(/PROXY_SOCKET/);
    expect(() => loadConfig({ DATABASE_URL: "memory://", PROXY_SOCKET: `/run/${"x".repeat(110)}.sock` })).toThrow(/PROXY_SOCKET/);
    expect(loadConfig({ DATABASE_URL: "memory://", PROXY_SOCKET: "/run/checkout/3001/proxy.sock" }).proxySocket).toBe("/run/checkout/3001/proxy.sock");
  });

  it("derives PUBLIC_BASE_URL from PORT and trims a trailing slash when given", () => {
    expect(loadConfig({ DATABASE_URL: "memory://", PORT: "8080" }).publicBaseUrl).toBe("http://localhost:8080");
    expect(loadConfig({ DATABASE_URL: "memory://", PUBLIC_BASE_URL: "https://pay.example.com/" }).publicBaseUrl).toBe("https://pay.example.com");
  });
});

describe("custom domains and integrations", () => {
  const base = { DATABASE_URL: "memory://" };

  it("defaults the platform records, the system resolvers and a 10 s integration timeout", () => {
    const config = loadConfig(base);
    expect(config.hosting).toEqual({ apiUrl: null, apiToken: null, projectId: null, aRecord: "76.76.21.21", cnameTarget: "cname.vercel-dns.com" });
    expect(config.dnsServers).toBeNull();
    expect(config.integrationTimeoutMs).toBe(10_000);
  });

  it("a repeat waits 10 s for the request holding its claim unless WAIT_FOR_FIRST_MS says otherwise", () => {
    expect(loadConfig(base).waitForFirstMs).toBe(10_000);
    expect(loadConfig({ ...base, WAIT_FOR_FIRST_MS: "250" }).waitForFirstMs).toBe(250);
    expect(() => loadConfig({ ...base, WAIT_FOR_FIRST_MS: "-1" })).toThrow(/WAIT_FOR_FIRST_MS must be an integer >= 0/);
  });

  it("takes DNS_SERVERS as host[:port] list", () => {
    expect(loadConfig({ ...base, DNS_SERVERS: "1.1.1.1, 127.0.0.1:5353,[::1]:53,2001:db8::1" }).dnsServers).toEqual(["1.1.1.1", "127.0.0.1:5353", "[::1]:53", "2001:db8::1"]);
  });

  it.each([
    ["DNS_SERVERS", "dns.example.com"],
    ["DNS_SERVERS", "1.1.1.1:99999"],
    ["DNS_SERVERS", "1.1.1.1,,"],
    ["HOSTING_A_RECORD", "cname.example.com"],
    ["HOSTING_CNAME_TARGET", "not a host"],
    ["INTEGRATION_TIMEOUT_MS", "0"],
    ["HOSTING_API_URL", "not a url"],
  ])("refuses %s=%j, naming it", (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
  });
});

describe("ENCRYPTION_KEY_PREVIOUS and FAULT_POINT", () => {
  const base = { DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: SECRET, ENCRYPTION_KEY: Buffer.alloc(32, 5).toString("base64") };

  it("reads comma-separated previous keys (base64 or hex) after the current key", () => {
    const config = loadConfig({ ...base, ENCRYPTION_KEY_PREVIOUS: `${Buffer.alloc(32, 6).toString("base64")}, ${Buffer.alloc(32, 7).toString("hex")}` });
    expect(config.encryptionKeyring).toEqual([Buffer.alloc(32, 5), Buffer.alloc(32, 6), Buffer.alloc(32, 7)]);
    expect(loadConfig(base).encryptionKeyring).toEqual([Buffer.alloc(32, 5)]);
  });

  it("refuses a previous key that is not 32 bytes, naming its position, or one equal to the current key", () => {
    expect(() => loadConfig({ ...base, ENCRYPTION_KEY_PREVIOUS: `${Buffer.alloc(32, 6).toString("base64")},c2hvcnQ=` })).toThrow(
      new ConfigError("ENCRYPTION_KEY_PREVIOUS (key 2) must be 32 bytes, base64 or hex encoded (got 5 bytes)"),
    );
    expect(() => loadConfig({ ...base, ENCRYPTION_KEY_PREVIOUS: base.ENCRYPTION_KEY })).toThrow(new ConfigError("ENCRYPTION_KEY_PREVIOUS must not contain the current ENCRYPTION_KEY"));
  });

  it("takes a known FAULT_POINT in test mode, refuses an unknown one and any in live mode", () => {
    expect(loadConfig(base).faultPoint).toBeNull();
    const faulty = loadConfig({ ...base, FAULT_POINT: "charge.after-provider" });
    expect(faulty.faultPoint).toBe("charge.after-provider");
    expect(faulty.warnings.some((w) => w.includes("FAULT_POINT=charge.after-provider"))).toBe(true);
    expect(() => loadConfig({ ...base, FAULT_POINT: "nowhere" })).toThrow(/FAULT_POINT must be one of charge.before-provider/);
    expect(() => loadConfig({ ...base, FAULT_POINT: "charge.after-provider", PAYMENT_MODE: "live" })).toThrow(
      new ConfigError("FAULT_POINT is for crash tests and cannot be set with PAYMENT_MODE=live"),
    );
  });
});

describe("CHECKOUT_TOKEN_SECRET_PREVIOUS", () => {
  const base = { DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: SECRET };
  const OLD = "o".repeat(32);
  const OLDER = "p".repeat(40);

  it("reads comma-separated previous secrets, trimmed, and defaults to none", () => {
    expect(loadConfig({ ...base, CHECKOUT_TOKEN_SECRET_PREVIOUS: ` ${OLD} ,${OLDER},` }).checkoutTokenSecretsPrevious).toEqual([OLD, OLDER]);
    expect(loadConfig(base).checkoutTokenSecretsPrevious).toEqual([]);
    expect(loadConfig({ ...base, CHECKOUT_TOKEN_SECRET_PREVIOUS: "" }).checkoutTokenSecretsPrevious).toEqual([]);
  });

  it("refuses a previous secret shorter than 32 characters, naming its position, or one equal to the current secret", () => {
    expect(() => loadConfig({ ...base, CHECKOUT_TOKEN_SECRET_PREVIOUS: `${OLD},short` })).toThrow(
      new ConfigError("CHECKOUT_TOKEN_SECRET_PREVIOUS (secret 2) must be at least 32 characters"),
    );
    expect(() => loadConfig({ ...base, CHECKOUT_TOKEN_SECRET_PREVIOUS: `${OLD}, ${SECRET}` })).toThrow(
      new ConfigError("CHECKOUT_TOKEN_SECRET_PREVIOUS must not contain the current CHECKOUT_TOKEN_SECRET"),
    );
  });
});

describe("TRUST_PROXY (issue 21 item 1)", () => {
  const base = { DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: SECRET };
  const trust = (value: string) => loadConfig({ ...base, TRUST_PROXY: value }).trustProxy;

  it("takes false, true, a hop count, or comma-separated addresses and CIDR ranges", () => {
    expect(loadConfig(base).trustProxy).toBe(false);
    expect(trust("false")).toBe(false);
    expect(trust("0")).toBe(false);
    expect(trust("true")).toBe(true);
    expect(trust("1")).toBe(1);
    expect(trust("2")).toBe(2);
    expect(trust("127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback")).toEqual(["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", "loopback"]);
  });

  it("refuses anything else, naming the entry", () => {
    expect(() => trust("yes")).toThrow(/TRUST_PROXY must be true, false, a hop count, or comma-separated proxy addresses or CIDR ranges .* got "yes"/);
    expect(() => trust("10.0.0.0/33")).toThrow(/got "10.0.0.0\/33"/);
    expect(() => trust("127.0.0.1,nginx.internal")).toThrow(/got "nginx.internal"/);
    expect(() => trust("11")).toThrow(/hop count must be at most 10/);
  });

  it("a hop count trusts that many nearest hops, the socket's peer first (Fastify alone would trust none)", () => {
    const fn = fastifyTrustProxy(2) as (address: string, hop: number) => boolean;
    expect([0, 1, 2].map((hop) => fn("10.0.0.1", hop))).toEqual([true, true, false]);
    expect(fastifyTrustProxy(["10.0.0.0/8"])).toEqual(["10.0.0.0/8"]);
  });
});

describe("unsafe settings (issue 21 item 3)", () => {
  const postgres = { DATABASE_URL: "postgres://db/x", CHECKOUT_TOKEN_SECRET: SECRET, ENCRYPTION_KEY: "ab".repeat(32) };
  const names = (env: Record<string, string>) => loadConfig(env).unsafe.map((u) => u.name);

  it("on PostgreSQL: test payments, open registration, no SMTP_URL; the embedded database's defaults are not", () => {
    expect(names(postgres)).toEqual(["payment_mode_test", "registration_open", "smtp_unset"]);
    expect(names({ ...postgres, PAYMENT_MODE: "live", REGISTRATION_MODE: "disabled", SMTP_URL: "smtp://mail:25" })).toEqual([]);
    expect(names({ ...postgres, PAYMENT_MODE: "live", REGISTRATION_MODE: "disabled", MAIL_TRANSPORT: "log" })).toEqual(["mail_transport_log"]);
    expect(names({ DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: SECRET })).toEqual([]);
    expect(names({ DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: SECRET, NODE_ENV: "production" })).toEqual(["payment_mode_test", "registration_open", "smtp_unset"]);
  });

  it("proxy trust: true always; a hop count on a non-loopback HOST; proxy addresses never", () => {
    const memory = { DATABASE_URL: "memory://", CHECKOUT_TOKEN_SECRET: SECRET };
    expect(names({ ...memory, TRUST_PROXY: "true" })).toEqual(["trust_proxy_true"]);
    expect(names({ ...memory, TRUST_PROXY: "1" })).toEqual([]);
    expect(names({ ...memory, TRUST_PROXY: "1", HOST: "0.0.0.0" })).toEqual(["trust_proxy_hops_public_host"]);
    expect(names({ ...memory, TRUST_PROXY: "10.0.0.0/8", HOST: "0.0.0.0" })).toEqual([]);
  });

  it("in production refuses what ALLOW_UNSAFE does not name, and refuses unknown names", () => {
    const production = { ...postgres, NODE_ENV: "production" };
    expect(productionRefusal(loadConfig(production))).toMatch(/^NODE_ENV=production with 3 unsafe settings .*ALLOW_UNSAFE=payment_mode_test,registration_open,smtp_unset\):/);
    expect(productionRefusal(loadConfig({ ...production, ALLOW_UNSAFE: "payment_mode_test, registration_open,smtp_unset" }))).toBeNull();
    expect(productionRefusal(loadConfig(postgres))).toBeNull();
    expect(() => loadConfig({ ...production, ALLOW_UNSAFE: "everything" })).toThrow(/ALLOW_UNSAFE names unknown settings \(everything\)/);
  });

  it("MAIL_TRANSPORT is smtp or log", () => {
    expect(loadConfig(postgres).smtp.transport).toBe("smtp");
    expect(() => loadConfig({ ...postgres, MAIL_TRANSPORT: "stdout" })).toThrow(/MAIL_TRANSPORT must be one of smtp, log/);
  });

  it("reads provider health and success-rate settings (CIRCUIT_*, SUCCESS_RATE_*), and refuses values outside their domain", () => {
    expect(loadConfig(postgres).orchestration).toEqual({
      circuit: { failureThreshold: 5, failurePercent: 50, windowMs: 60_000, openMs: 30_000 },
      successRates: { halfLife: 30, trafficHalfLife: 300, minAttempts: 20 },
    });
    const set = { CIRCUIT_FAILURE_THRESHOLD: "3", CIRCUIT_FAILURE_PERCENT: "100", CIRCUIT_WINDOW_SECONDS: "120", CIRCUIT_OPEN_SECONDS: "10", SUCCESS_RATE_HALF_LIFE: "50", SUCCESS_RATE_TRAFFIC_HALF_LIFE: "1000", SUCCESS_RATE_MIN_ATTEMPTS: "50" };
    expect(loadConfig({ ...postgres, ...set }).orchestration).toEqual({
      circuit: { failureThreshold: 3, failurePercent: 100, windowMs: 120_000, openMs: 10_000 },
      successRates: { halfLife: 50, trafficHalfLife: 1000, minAttempts: 50 },
    });
    expect(() => loadConfig({ ...postgres, CIRCUIT_FAILURE_PERCENT: "101" })).toThrow(/CIRCUIT_FAILURE_PERCENT must be at most 100/);
    expect(() => loadConfig({ ...postgres, CIRCUIT_FAILURE_THRESHOLD: "0" })).toThrow(/CIRCUIT_FAILURE_THRESHOLD must be an integer >= 1/);
    expect(() => loadConfig({ ...postgres, SUCCESS_RATE_HALF_LIFE: "0" })).toThrow(/SUCCESS_RATE_HALF_LIFE must be an integer >= 1/);
    expect(() => loadConfig({ ...postgres, SUCCESS_RATE_TRAFFIC_HALF_LIFE: "5" })).toThrow(/SUCCESS_RATE_TRAFFIC_HALF_LIFE must be an integer >= 10/);
    expect(() => loadConfig({ ...postgres, SUCCESS_RATE_MIN_ATTEMPTS: "20000" })).toThrow(/SUCCESS_RATE_MIN_ATTEMPTS must be at most 10000/);
    // The sliding window it replaces is no longer read: a warning, not a refusal to start.
    expect(loadConfig({ ...postgres, SUCCESS_RATE_WINDOW: "200" }).warnings).toContainEqual(expect.stringMatching(/SUCCESS_RATE_WINDOW is no longer read/));
  });
});
