// The multi-instance harness: N real service processes (`node dist/main.js`, what `npm start` runs)
// on one PostgreSQL database and one Redis, each on its own port, and a tiny round-robin client.
// Used by the cluster tests and by `npm run soak`; `npm run bench` can use it the same way
// (startCluster + client.request, or cluster.urls for a load generator). Needs `npm run build`.
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import pg from "pg";
import { SignJWT } from "jose";
import { createDatabase as createTestDatabase } from "../support/database.js";

/** One service process of the cluster. */
export interface Instance {
  baseUrl: string;
  port: number;
  child: ChildProcess;
  /** The last 256 KiB of its stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** A port free on 127.0.0.1 right now (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const OUTPUT_CAP = 256 * 1024;

/**
 * Starts `node dist/main.js` on a free port (or `port`) and waits until /healthz answers 200, so it
 * works at any LOG_LEVEL. Only the process's environment is `env` (plus PATH).
 */
export async function startInstance(env: Record<string, string>, options: { port?: number; timeoutMs?: number } = {}): Promise<Instance> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, ["dist/main.js"], { env: { PATH: process.env.PATH ?? "", ...env, PORT: String(port) }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const append = (d: Buffer) => {
    out += d;
    if (out.length > OUTPUT_CAP * 2) out = out.slice(-OUTPUT_CAP);
  };
  child.stdout!.on("data", append);
  child.stderr!.on("data", append);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`instance exited with ${child.exitCode ?? child.signalCode}:\n${out}`);
    try {
      const res = await fetch(`${baseUrl}/healthz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`instance did not become healthy in time:\n${out}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    baseUrl,
    port,
    child,
    exited,
    output: () => out,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export const CLUSTER_TOKEN_SECRET = "cluster-checkout-token-secret-0123456789abcdef";
export const CLUSTER_ENCRYPTION_KEY = Buffer.alloc(32, 9).toString("base64");

/** Why the cluster tests cannot run here, or null when they can (they need PostgreSQL and Redis). */
export function clusterSkipReason(): string | null {
  const missing = ["DATABASE_URL", "REDIS_URL"].filter((name) => !process.env[name]);
  if (missing.length === 0 && !/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL!)) return "skipped: DATABASE_URL is not a postgres:// URL (the cluster tests need PostgreSQL)";
  return missing.length ? `skipped: ${missing.join(" and ")} not set (the cluster tests run N processes on one PostgreSQL and one Redis)` : null;
}

/** A new, empty database next to `baseUrl`'s; `drop` removes it (forcing out any connection). */
export const createDatabase = (baseUrl: string) => createTestDatabase(baseUrl, "cluster");

export interface Answer {
  status: number;
  body: Record<string, any>;
  text: string;
  headers: Headers;
  /** Which instance answered (index into cluster.instances). */
  instance: number;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send to this instance instead of the next in turn. */
  instance?: number;
  /** Retry on another instance while connections are refused or reset (a client behind a load balancer). */
  retryOnConnectionError?: boolean;
  redirect?: "manual" | "follow" | "error";
}

/** Round-robin over the instances' base URLs, as the simplest load balancer does. */
export class RoundRobinClient {
  private turn = 0;
  constructor(private readonly urls: () => string[]) {}

  next(): number {
    const count = this.urls().length;
    return this.turn++ % count;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const instance = options.instance ?? this.next();
      try {
        const res = await fetch(this.urls()[instance] + path, {
          method,
          redirect: options.redirect ?? "manual",
          headers: { ...(options.body !== undefined ? { "content-type": "application/json" } : {}), ...options.headers },
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
        });
        const text = await res.text();
        let body: Record<string, any> = {};
        try {
          body = text ? JSON.parse(text) : {};
        } catch {
          body = {};
        }
        return { status: res.status, body, text, headers: res.headers, instance };
      } catch (error) {
        const code = (error as { cause?: { code?: string } }).cause?.code;
        const refused = code === "ECONNREFUSED" || code === "ECONNRESET" || code === "UND_ERR_SOCKET" || code === "EPIPE";
        if (!options.retryOnConnectionError || !refused || attempt >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
}

export interface Cluster {
  instances: Instance[];
  urls: string[];
  client: RoundRobinClient;
  databaseUrl: string;
  env: Record<string, string>;
  /** Starts one more instance with the cluster's environment (plus `extra`). */
  add(extra?: Record<string, string>): Promise<Instance>;
  /** Stops every instance (SIGTERM) and drops the database when the cluster created it. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  instances: number;
  /** Defaults to a new database next to DATABASE_URL's, dropped by stop(). */
  databaseUrl?: string;
  redisUrl?: string | null;
  env?: Record<string, string>;
}

/** Starts `instances` processes on one database and one Redis. The first migrates; the others start together. */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const created = options.databaseUrl ? null : await createDatabase(process.env.DATABASE_URL!);
  const databaseUrl = options.databaseUrl ?? created!.url;
  const redisUrl = options.redisUrl === undefined ? process.env.REDIS_URL : options.redisUrl;
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
    CHECKOUT_TOKEN_SECRET: CLUSTER_TOKEN_SECRET,
    ENCRYPTION_KEY: CLUSTER_ENCRYPTION_KEY,
    HOST: "127.0.0.1",
    RATE_LIMIT_ANONYMOUS: "1000000",
    RATE_LIMIT_AUTHENTICATED: "1000000",
    LOG_LEVEL: "warn",
    // No drain (docs/operations.md step 5) unless a test asks: stopping a cluster stays quick.
    SHUTDOWN_DRAIN_SECONDS: "0",
    ...options.env,
  };
  const instances: Instance[] = [];
  const cluster: Cluster = {
    instances,
    get urls() {
      return instances.map((i) => i.baseUrl);
    },
    client: new RoundRobinClient(() => instances.map((i) => i.baseUrl)),
    databaseUrl,
    env,
    add: async (extra = {}) => {
      const server = await startInstance({ ...env, ...extra });
      instances.push(server);
      return server;
    },
    stop: async () => {
      await Promise.all(instances.map((i) => i.stop("SIGTERM")));
      await created?.drop();
    },
  };
  try {
    await cluster.add();
    await Promise.all(Array.from({ length: options.instances - 1 }, () => cluster.add()));
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** A checkout token signed with the cluster's secret, valid for an hour. */
export async function clusterToken(claims: Record<string, unknown>): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ iat: now, exp: now + 3600, ...claims }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(new TextEncoder().encode(CLUSTER_TOKEN_SECRET));
}

/** Initializes a checkout and pays it with the demo card at vault_gateway_b: what `complete` then verifies. */
export async function paidCheckout(client: RoundRobinClient, orderId: string, amount = 4999): Promise<{ transactionId: string }> {
  const token = await clusterToken({ orderId, amount, currency: "USD", productName: "Kit" });
  const init = await client.request("POST", "/api/checkout/initialize", { body: { token, provider: "vault_gateway_b" } });
  if (init.status !== 200) throw new Error(`initialize ${init.status} ${init.text}`);
  const paid = await client.request("POST", "/api/providers/vault_gateway_b/process-payment", {
    body: { orderId, amount, currency: "USD", cardNumber: "4242424242424242", cardExpMonth: "12", cardExpYear: "2031", cardCvv: "123" },
  });
  if (paid.status !== 200) throw new Error(`pay ${paid.status} ${paid.text}`);
  return { transactionId: paid.body.transactionId as string };
}

/** The `complete` body for a paid checkout (amount as paid). */
export const completeBody = (orderId: string, transactionId: string, amount = 4999, extra: Record<string, unknown> = {}) => ({
  orderId,
  transactionId,
  provider: "vault_gateway_b",
  customerEmail: "ada@example.com",
  customerName: "Ada Lovelace",
  amount,
  currency: "USD",
  ...extra,
});
