// Preloaded into each server under test when BENCH_PROFILE_DIR is set (bench/lib/proc.mjs): the
// first SIGWINCH starts a CPU profile, the next writes it to BENCH_PROFILE_DIR, and so on (SIGWINCH:
// the service's close-with-grace takes SIGUSR2 as a shutdown). measuredRun sends them around each
// measured run, so a profile holds that run's requests only, not the preparation before it
// (sessions and checkouts made through the API) that --cpu-prof would mix in.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import path from "node:path";

const dir = process.env.BENCH_PROFILE_DIR;
const session = new Session();
session.connect();
let profiling = false;
let written = 0;
process.on("SIGWINCH", () => {
  if (!profiling) {
    session.post("Profiler.enable", () => session.post("Profiler.start"));
  } else {
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(path.join(dir, `${process.pid}-${++written}.cpuprofile`), JSON.stringify(result.profile));
    });
  }
  profiling = !profiling;
});
