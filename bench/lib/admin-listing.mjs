// What the back-office listing benchmarks share (bench/audit.mjs, bench/orders.mjs): the service on a
// fresh PostgreSQL database with its first owner (who adopts the default organization and brand), and
// the latency one administrator waits for a page.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startNodeServer } from "./proc.mjs";
import { createDatabase, dropDatabase, findPostgres } from "./postgres.mjs";
import { serviceEnv } from "./service-env.mjs";

export const median = (list) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) / 2)];

/** Starts dist/main.js on a new database, registers the owner, runs `fn({ server, url, cookie })`, then drops everything. */
export async function withOwnerOnFreshDatabase(prefix, fn) {
  const serverUrl = await findPostgres();
  if (!serverUrl) throw new Error("No PostgreSQL answers (set DATABASE_URL): this benchmark is PostgreSQL only.");
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const url = await createDatabase(serverUrl, name);
  const workDir = mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  let server;
  try {
    server = await startNodeServer({ script: "dist/main.js", env: serviceEnv({ url, dataDir: workDir }), logFile: path.join(workDir, "service.log") });
    const registered = await fetch(`${server.baseUrl}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench Owner", email: `owner-${Date.now()}@example.com`, password: "correct horse battery staple", orgName: "Bench Org" }),
    });
    if (!registered.ok) throw new Error(`register answered ${registered.status}: ${await registered.text()}`);
    const cookie = registered.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    return await fn({ server, url, cookie });
  } finally {
    // A service that failed to start still leaves its database and folder behind otherwise.
    await server?.stop();
    await dropDatabase(serverUrl, name).catch(() => {});
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** 20 sequential requests: the latency one administrator waits. */
export async function sequential(baseUrl, urlPath, cookie) {
  const times = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    const response = await fetch(baseUrl + urlPath, { headers: { cookie } });
    await response.text();
    if (!response.ok) throw new Error(`GET ${urlPath} answered ${response.status}`);
    times.push(performance.now() - started);
  }
  return { p50: median(times), max: Math.max(...times) };
}

/** The machine line every generated benchmark page starts with. */
export const machine = () => `${os.cpus().length} CPUs, ${os.cpus()[0]?.model ?? ""}, Node.js ${process.version}, load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`;
