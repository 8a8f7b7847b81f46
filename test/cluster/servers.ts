// Throw-away Redis and PostgreSQL servers for the fault tests: their own processes on free loopback
// ports and temporary directories, so stopping and restarting them never touches the shared
// PostgreSQL (5432) and Redis (6379) that other tests use.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./cluster.js";

function which(binary: string): string | null {
  const found = spawnSync("sh", ["-c", `command -v ${binary}`], { encoding: "utf8" });
  return found.status === 0 ? found.stdout.trim() : null;
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listening on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Why a private Redis cannot be started here, or null. */
export function redisSkipReason(): string | null {
  return which("redis-server") ? null : "skipped: redis-server is not installed";
}

/** A redis-server of our own on a free port, without persistence. stop() and start() keep the port. */
export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const server: RedisServer = {
    url: `redis://127.0.0.1:${port}`,
    port,
    start: async () => {
      child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
      await waitForPort(port, 10_000);
    },
    stop: async () => {
      const running = child;
      child = null;
      if (!running || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGKILL");
      await exited;
    },
  };
  await server.start();
  return server;
}

export interface PostgresServer {
  /** The `postgres` database of the private server (create your own next to it). */
  url: string;
  port: number;
  /** Stops the server: fast mode by default, or "immediate" (like a crash). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its data directory. */
  destroy(): Promise<void>;
}

function postgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(path.join(root, v, "bin", "pg_ctl"))) return path.join(root, v, "bin");
  return null;
}

const asRoot = process.getuid?.() === 0;
/** initdb and postgres refuse to run as root: run them as the postgres user then. */
function pgCommand(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
}

export function postgresSkipReason(): string | null {
  const bin = postgresBin();
  if (!bin) return "skipped: no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (initdb, pg_ctl)";
  if (asRoot && !which("runuser")) return "skipped: running as root without runuser to start PostgreSQL as the postgres user";
  return null;
}

function run(bin: string, args: string[]): void {
  const [command, argv] = pgCommand(bin, args);
  const result = spawnSync(command, argv, { encoding: "utf8", timeout: 60_000 });
  if (result.status !== 0) throw new Error(`${path.basename(bin)} failed (${result.status}): ${result.stderr || result.stdout}`);
}

/** A PostgreSQL cluster of our own (initdb in a temporary directory, trust auth, loopback only, a free port). */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin()!;
  const dir = mkdtempSync(path.join(tmpdir(), "faults-pg-"));
  chmodSync(dir, 0o777);
  const data = path.join(dir, "data");
  if (asRoot) spawnSync("chown", ["postgres", dir]);
  run(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=100`;
  const server: PostgresServer = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: async () => {
      run(path.join(bin, "pg_ctl"), ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "start"]);
      await waitForPort(port, 10_000);
    },
    stop: async (mode = "fast") => {
      run(path.join(bin, "pg_ctl"), ["-D", data, "-m", mode, "-w", "stop"]);
    },
    destroy: async () => {
      try {
        run(path.join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
