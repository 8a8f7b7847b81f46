import { existsSync } from "node:fs";
import { defineConfig } from "vitest/config";

// The same suite runs on PGlite always and on PostgreSQL when DATABASE_URL is set (scripts/test.mjs
// says which legs ran). Pure-module tests are named *.unit.test.ts and run once. Browser tests
// (test/e2e) start their own server on the embedded database and run once, in the `browser` project;
// without a Chromium binary they skip with a message.
const dbTests = ["src/**/*.test.ts", "test/**/*.test.ts"];
const unitTests = ["src/**/*.unit.test.ts", "test/**/*.unit.test.ts"];
const browserTests = ["test/e2e/**/*.test.ts"];
// Generous: these bound a hung test, never a slow one; a loaded 2-core machine can take a minute to
// start a server process (test/support/process.ts waits up to 120 s for one).
const common = { testTimeout: 180_000, hookTimeout: 180_000 };
// Migrates once per run: the database every test app starts from (a PGlite dump, a PostgreSQL
// template); the browser files' servers start on the dump too.
const globalSetup = ["test/support/migrated-database.ts"];
// The database files share their worker's modules (isolate: false): importing the app once per worker
// instead of once per file cut the run's import time from 399 s to 21 s (issue 32). Safe because no
// test mocks a module or changes process.env, every test app gets its own database and closes it, and
// src/'s module-level caches hold only pure derived values (formats, keys, prepared statement texts).
const shared = { isolate: false };
const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => existsSync(p)) ?? "";

export default defineConfig({
  test: {
    pool: "forks",
    maxWorkers: 2,
    projects: [
      { test: { ...common, ...shared, name: "pglite", include: dbTests, exclude: browserTests, globalSetup, env: { TEST_DB: "pglite" } } },
      ...(process.env.DATABASE_URL
        ? [{ test: { ...common, ...shared, name: "postgres", include: dbTests, exclude: [...unitTests, ...browserTests], globalSetup, env: { TEST_DB: "postgres" } } }]
        : []),
      // One file at a time: each starts a server and a browser on a machine shared with the other legs.
      { test: { ...common, name: "browser", include: browserTests, fileParallelism: false, globalSetup, env: { CHROMIUM_PATH: chromium } } },
    ],
  },
});
