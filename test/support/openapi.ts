// Checks on the generated OpenAPI document (not a test file itself).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { buildTestApp, json } from "./app.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/** An operation as a route file should document it: input kind and the error statuses it can answer. */
export type DocumentedOperation = [method: string, path: string, input: "body" | "query" | "none", errors: string[]];

/** The generated /openapi.json of a test app built and closed for it (the document depends on no data). */
export async function openApiDocument(): Promise<Record<string, any>> {
  const t = await buildTestApp();
  try {
    return json(await t.app.inject({ method: "GET", url: "/openapi.json" }));
  } finally {
    await t.close();
  }
}

/** The operation exists with tags, its request schema, a 200 and each of its error statuses. */
export function expectDocumented(doc: Record<string, any>, [method, path, input, errors]: DocumentedOperation): void {
  const operation = doc.paths?.[path]?.[method];
  expect(operation, `${method} ${path}`).toBeDefined();
  expect(operation.tags?.length).toBeGreaterThan(0);
  if (input === "body") expect(operation.requestBody?.content?.["application/json"]?.schema, `${method} ${path} body`).toBeDefined();
  // "query": a listing with its filters (page, limit and at least two more).
  if (input === "query") expect(operation.parameters?.length, `${method} ${path} query`).toBeGreaterThan(3);
  expect(operation.responses?.["200"]).toBeDefined();
  for (const status of errors) expect(operation.responses?.[status], `${method} ${path} ${status}`).toBeDefined();
}

export interface LintProblem {
  ruleId: string;
  severity: "error" | "warn";
  message: string;
  location: { pointer: string }[];
}

/**
 * `redocly lint` with the repository's redocly.yaml (the recommended rules) on the document, as CI
 * runs it: the document is written to a temporary file and the CLI's JSON report read back.
 */
export function lintApiDescription(doc: Record<string, any>): { errors: LintProblem[]; warnings: LintProblem[] } {
  const dir = mkdtempSync(join(tmpdir(), "openapi-lint-"));
  try {
    const file = join(dir, "openapi.json");
    writeFileSync(file, JSON.stringify(doc));
    const cli = join(REPO, "node_modules/@redocly/cli/bin/cli.js");
    const run = spawnSync(process.execPath, [cli, "lint", "--config", join(REPO, "redocly.yaml"), "--format", "json", "--max-problems", "10000", file], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      timeout: 120_000,
    });
    const start = run.stdout.indexOf("{");
    if (start < 0) throw new Error(`redocly lint gave no report (status ${run.status}): ${run.stderr}`);
    const problems = (JSON.parse(run.stdout.slice(start)) as { problems: LintProblem[] }).problems;
    return { errors: problems.filter((p) => p.severity === "error"), warnings: problems.filter((p) => p.severity === "warn") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
