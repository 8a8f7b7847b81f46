import { defineConfig } from "vitest/config";

// The same suite runs on PGlite always and on PostgreSQL when DATABASE_URL is set (scripts/test.mjs
// says which legs ran). Pure-module tests are named *.unit.test.ts and run once.
const dbTests = ["src/**/*.test.ts", "test/**/*.test.ts"];
const unitTests = ["src/**/*.unit.test.ts", "test/**/*.unit.test.ts"];
const common = { testTimeout: 60_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    pool: "forks",
    maxWorkers: 2,
    projects: [
      { test: { ...common, name: "pglite", include: dbTests, env: { TEST_DB: "pglite" } } },
      ...(process.env.DATABASE_URL
        ? [{ test: { ...common, name: "postgres", include: dbTests, exclude: unitTests, env: { TEST_DB: "postgres" } } }]
        : []),
    ],
  },
});
