// `npm test`: type-checks, builds (the process tests start dist/main.js; the pages serve web/dist), then runs every leg the
// machine allows. Legs needing PostgreSQL, Redis or Chromium run when DATABASE_URL, REDIS_URL or a
// Chromium binary are present, and say so when they are skipped.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, mkdirSync } from "node:fs";

const run = (cmd, args, env = process.env) => {
  const result = spawnSync(cmd, args, { stdio: "inherit", env });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p));
console.log("Test legs:");
console.log("  PGlite (embedded):  runs");
console.log(`  PostgreSQL:         ${process.env.DATABASE_URL ? `runs (${process.env.DATABASE_URL.replace(/:[^:@/]*@/, ":***@")})` : "SKIPPED (set DATABASE_URL=postgres://...)"}`);
console.log(`  Redis:              ${process.env.REDIS_URL ? `runs (${process.env.REDIS_URL})` : "SKIPPED (set REDIS_URL=redis://...)"}`);
console.log(`  Browser (Chromium): ${chromium ? `runs (${chromium})` : "SKIPPED (no Chromium binary)"}`);

run("npx", ["tsc", "-p", "tsconfig.json", "--noEmit"]);
run("npx", ["tsc", "-p", "web/tsconfig.json"]);
// The typed merchant client on its own, as a merchant compiles it (client/README.md).
run("npx", ["tsc", "-p", "client/tsconfig.json", "--noEmit"]);
run("npx", ["tsc", "-p", "tsconfig.build.json"]);
// The web front end: the page tests and the browser leg serve web/dist.
run("npx", ["vite", "build", "--config", "web/vite.config.ts", "--logLevel", "warn"]);
mkdirSync("test-results", { recursive: true });
const vitest = spawnSync("npx", ["vitest", "run", "--reporter=default", "--reporter=json", "--outputFile.json=test-results/vitest.json", ...process.argv.slice(2)], { stdio: "inherit" });
if (existsSync("test-results/vitest.json")) {
  const r = JSON.parse(readFileSync("test-results/vitest.json", "utf8"));
  console.log(`\ntests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
}
process.exit(vitest.status ?? 1);
