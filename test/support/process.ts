import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pgliteDumpFile } from "./database.js";

export interface StartedServer {
  baseUrl: string;
  child: ChildProcess;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts the built service (dist/main.js, what `npm start` runs) and waits for its listening line. */
export async function startServer(env: Record<string, string>, timeoutMs = 120_000, cwd?: string): Promise<StartedServer> {
  const child = spawn(process.execPath, ["dist/main.js"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", PORT: "0", SHUTDOWN_DRAIN_SECONDS: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Never leave a process behind a failed start (it would outlive the test run).
      child.kill("SIGKILL");
      reject(new Error(`server did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const check = () => {
      const match = out.match(/listening on (http:\/\/[^\s"]+)/);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${out}`));
    });
  });
  return {
    baseUrl,
    child,
    output: () => out,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Runs the service (or another built script, such as dist/migrate.js) to its exit: refusals to start, commands. */
export function runToExit(env: Record<string, string>, script = "dist/main.js"): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH ?? "", PORT: "0", ...env } });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

/**
 * A new DATA_DIR holding the run's migrated embedded database (the dump of test/support/migrated-database.ts
 * unpacked where the service keeps it): a server started on it skips PGlite's initdb and the
 * migrations, about 5 s of a first start (more on a loaded machine). For tests of something else than
 * a first start; those of a first start on an empty DATA_DIR keep using an empty one.
 */
export async function migratedDataDir(prefix: string): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  mkdirSync(path.join(dataDir, "pglite"));
  execFileSync("tar", ["-xf", await pgliteDumpFile(), "-C", path.join(dataDir, "pglite")], { stdio: "ignore" });
  return dataDir;
}
