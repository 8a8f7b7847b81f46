// Generates SQL migrations from src/db/schema with drizzle-kit.
// `--reset` rebuilds them from scratch: allowed only before the first release, while no database
// anywhere has applied them (see docs/development.md).
import { execFileSync } from "node:child_process";
import { rmSync } from "node:fs";

if (process.argv.includes("--reset")) rmSync("src/db/migrations", { recursive: true, force: true });
execFileSync("npx", ["drizzle-kit", "generate", "--name", process.argv.includes("--reset") ? "init" : "change"], { stdio: "inherit" });
