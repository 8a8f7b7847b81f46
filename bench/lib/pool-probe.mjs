// Loaded into the service under test (`node --import ./bench/lib/pool-probe.mjs dist/main.js`) by
// bench/pool-stall.mjs: every 200 ms it appends one JSON line to $POOL_PROBE_FILE with the pg pool's
// counts, the longest wait for a connection still in progress, and the event loop's delay since the
// last line. It reads the pool from outside (pg's prototype), so the service runs unchanged.
import { appendFileSync } from "node:fs";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import pg from "pg";

const file = process.env.POOL_PROBE_FILE;
if (file) {
  const pools = new Set();
  const waits = new Set(); // start times (performance.now()) of connect() calls not yet answered
  const connect = pg.Pool.prototype.connect;
  pg.Pool.prototype.connect = function (callback) {
    pools.add(this);
    const wait = { at: performance.now() };
    waits.add(wait);
    if (typeof callback === "function") {
      return connect.call(this, (...answer) => {
        waits.delete(wait);
        callback(...answer);
      });
    }
    return connect.call(this).finally(() => waits.delete(wait));
  };
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  setInterval(() => {
    const now = performance.now();
    let oldest = 0;
    for (const wait of waits) oldest = Math.max(oldest, now - wait.at);
    const pool = [...pools][0];
    const line = {
      t: Date.now(),
      total: pool?.totalCount ?? 0,
      idle: pool?.idleCount ?? 0,
      waiting: pool?.waitingCount ?? 0,
      longestWaitMs: Math.round(oldest),
      loopDelayMaxMs: Math.round(delay.max / 1e6),
    };
    delay.reset();
    appendFileSync(file, JSON.stringify(line) + "\n");
  }, 200).unref();
}
