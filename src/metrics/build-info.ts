// What build is running: the version from package.json and the commit (issue 21 item 8), for the
// start-up line and checkout_build_info in /metrics.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface BuildInfo {
  version: string;
  commit: string;
}

// src/metrics or dist/metrics: the package root is two folders up in a checkout and in a release package.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return null;
  }
}

/** The commit of a git checkout, read from .git without running git (HEAD, a loose ref, or packed-refs). */
function gitCommit(root: string): string | null {
  const gitDir = path.join(root, ".git");
  let dir = gitDir;
  // A worktree's .git is a file naming its git directory.
  const pointer = existsSync(gitDir) ? readText(gitDir) : null;
  if (pointer?.startsWith("gitdir:")) dir = path.resolve(root, pointer.slice("gitdir:".length).trim());
  const head = readText(path.join(dir, "HEAD"));
  if (!head) return null;
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const ref = /^ref: (.+)$/.exec(head)?.[1];
  if (!ref) return null;
  // A worktree keeps its HEAD but shares refs with the main repository (commondir).
  const common = readText(path.join(dir, "commondir"));
  const refsDir = common ? path.resolve(dir, common) : dir;
  const loose = readText(path.join(refsDir, ref)) ?? readText(path.join(dir, ref));
  if (loose && /^[0-9a-f]{40}$/.test(loose)) return loose;
  const packed = readText(path.join(refsDir, "packed-refs"));
  const line = packed?.split("\n").find((l) => l.endsWith(` ${ref}`));
  return line ? line.slice(0, 40) : null;
}

/**
 * BUILD_COMMIT (config.buildCommit, set by the deploy pipeline), else a BUILD_COMMIT file at the package root (written
 * when the release is packaged), else the git checkout's HEAD, else "unknown".
 */
export function buildInfo(buildCommit: string | null, root = ROOT): BuildInfo {
  let version = "unknown";
  try {
    version = String(JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).version ?? "unknown");
  } catch {
    // a layout without package.json: the version stays unknown
  }
  const commit = buildCommit || readText(path.join(root, "BUILD_COMMIT")) || gitCommit(root) || "unknown";
  return { version, commit: commit.slice(0, 40) };
}
