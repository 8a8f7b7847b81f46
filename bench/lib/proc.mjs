// Starting the processes under test and reading their CPU time from /proc (Linux only).
import { spawn } from "node:child_process";
import { closeSync, openSync, readFileSync, readSync, readdirSync } from "node:fs";

// utime and stime are counted in clock ticks; Linux reports USER_HZ = 100 to user space everywhere
// we run (`getconf CLK_TCK`), so one tick is 10 ms.
const MS_PER_TICK = 10;

/**
 * Starts `node <script>` and resolves once its log says `listening on http://…` (what dist/main.js
 * prints, and what our bench servers print too). Output goes to a file, not a pipe: with
 * LOG_LEVEL=info the service writes one line per request, and reading that through a pipe would
 * cost the load generator CPU on the same machine.
 */
export async function startNodeServer({ script, args = [], env, logFile, nodeArgs = [], timeoutMs = 60_000 }) {
  const fd = openSync(logFile, "w");
  // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof": profile the servers under test (docs/performance.md).
  const extraArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  // BENCH_PROFILE_DIR=/tmp/prof: a profile of each measured run only (profile-on-signal.mjs, measuredRun).
  const profileDir = process.env.BENCH_PROFILE_DIR;
  if (profileDir) extraArgs.push(`--import=${new URL("./profile-on-signal.mjs", import.meta.url).href}`);
  const child = spawn(process.execPath, [...extraArgs, ...nodeArgs, script, ...args], {
    env: { PATH: process.env.PATH ?? "", PORT: "0", ...(profileDir ? { BENCH_PROFILE_DIR: profileDir } : {}), ...env },
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal)));
  const started = Date.now();
  let baseUrl = null;
  while (!baseUrl) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${script} exited before listening:\n${tail(logFile)}`);
    }
    if (Date.now() - started > timeoutMs) {
      child.kill("SIGKILL");
      throw new Error(`${script} did not listen within ${timeoutMs} ms:\n${tail(logFile)}`);
    }
    await sleep(100);
    // Only the head of the file: the line comes right after start-up warnings.
    const head = readHead(logFile, 64 * 1024);
    baseUrl = head.match(/listening on (http:\/\/[^\s"]+)/)?.[1] ?? null;
  }
  return {
    baseUrl,
    pid: child.pid,
    logFile,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

function readHead(file, bytes) {
  const fd = openSync(file, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    return buffer.subarray(0, readSync(fd, buffer)).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The last lines of a log file, for error messages. */
export function tail(file, lines = 40) {
  try {
    return readFileSync(file, "utf8").split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** utime + stime of one process (all its threads, including exited ones), in ms; null once it is gone. */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may contain spaces; fields after the closing parenthesis are fixed.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * MS_PER_TICK;
  } catch {
    return null;
  }
}

/**
 * The PostgreSQL processes that work for our benchmark database: its backends (their title names
 * the database), autovacuum workers on it, and the shared ones (postmaster, checkpointer, WAL
 * writer, background writer), which do work for our writes. Backends of other databases are left
 * out: other developers' test suites run on the same server.
 */
export function postgresPids(database) {
  const pids = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
      const title = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ").trim();
      const isClientBackend = /\d+\.\d+\.\d+\.\d+\(\d+\)|\[local\]/.test(title);
      const isOurs = title.includes(` ${database} `);
      if (isOurs || (!isClientBackend && !/autovacuum worker/.test(title))) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** CPU ms per pid, for a before/after difference. */
export function snapshotCpu(pids) {
  const snapshot = new Map();
  for (const pid of pids) {
    const ms = processCpuMs(pid);
    if (ms !== null) snapshot.set(pid, ms);
  }
  return snapshot;
}

/** CPU spent between two snapshots; a process that appeared in between counts from zero. */
export function cpuBetween(before, after) {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** Busy CPU time of the whole machine (all cores) in ms, from the first line of /proc/stat. */
export function machineBusyMs() {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return (user + nice + system + irq + softirq + steal) * MS_PER_TICK;
}
