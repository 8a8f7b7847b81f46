// Generates a SQL migration from the changes in src/db/schema (drizzle-kit). Commit the new file in
// src/db/migrations; never edit or regenerate one that has landed on main.
import { execFileSync } from "node:child_process";

execFileSync("npx", ["drizzle-kit", "generate", "--name", process.argv[2] ?? "change"], { stdio: "inherit" });
