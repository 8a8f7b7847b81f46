// `npm run package`: a self-contained release in release/checkout-service-<version>/ and its .tgz:
// the built server (dist/), the pages (web/dist/), the migrations (src/db/migrations/, where the
// server reads them), package.json without its build scripts, the lockfile, README, docs, deploy/
// (nginx, systemd and Prometheus files) and BUILD_COMMIT (the commit it was built from, which the
// service reports at start-up and in checkout_build_info: a release has no .git). On the
// target: `npm ci --omit=dev --ignore-scripts`, then `npm start` (docs/operations.md "Release package").
//
//   npm run package               builds first
//   npm run package -- --no-build uses the dist/ and web/dist/ already built
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(ROOT);
const run = (cmd, args, cwd = ROOT) => {
  const result = spawnSync(cmd, args, { stdio: "inherit", cwd });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

if (!process.argv.includes("--no-build")) run("npm", ["run", "build"]);
for (const built of ["dist/main.js", "dist/migrate.js", "dist/rotate-keys.js", "web/dist/index.html"]) {
  if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build`);
}

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const name = `checkout-service-${pkg.version}`;
const out = path.join("release", name);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
for (const part of ["dist", "web/dist", "src/db/migrations", "deploy", "docs", "README.md", "package-lock.json"]) {
  cpSync(part, path.join(out, part), { recursive: true });
}
// The commit, as the service itself finds it (BUILD_COMMIT, else this checkout's .git): a package
// that cannot say which commit it is would report commit="unknown" wherever it runs.
const { buildInfo } = await import(pathToFileURL(path.join(ROOT, "dist/metrics/build-info.js")).href);
const { commit } = buildInfo(process.env.BUILD_COMMIT || null, ROOT);
if (!/^[0-9a-f]{40}$/.test(commit)) {
  console.error(`npm run package: cannot tell the commit (got "${commit}"): package from a git checkout, or set BUILD_COMMIT=<40-hex commit>`);
  process.exit(1);
}
writeFileSync(path.join(out, "BUILD_COMMIT"), `${commit}\n`);
// Only what runs the service: `prepare` would try to build without the dev tools.
const scripts = { start: pkg.scripts.start, migrate: pkg.scripts.migrate, "rotate-keys": pkg.scripts["rotate-keys"] };
writeFileSync(path.join(out, "package.json"), JSON.stringify({ ...pkg, scripts }, null, 2) + "\n");
run("tar", ["-czf", `${name}.tgz`, name], "release");
console.log(`release/${name}/ and release/${name}.tgz`);
