// Checks on the generated OpenAPI document (not a test file itself).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsImport from "ajv-formats";
import type { FastifyReply, FastifyRequest } from "fastify";
import { expect } from "vitest";
import { buildTestApp, json } from "./app.js";

const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;
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

/** One answer the app sent, as `buildTestApp({ observe })` sees it. */
export interface Answer {
  method: string;
  /** The route's pattern (`/api/v1/orders/:orderId`), undefined for an unknown path or a URL the router refused. */
  route: string | undefined;
  url: string;
  hidden: boolean;
  status: number;
  contentType: string;
  body: string | null;
}

/** An `observe` for buildTestApp that keeps every answer in `answers` (streams, e.g. static files, without a body). */
export function recordAnswers(answers: Answer[]) {
  return (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const schema = request.routeOptions.schema as { hide?: boolean } | undefined;
    answers.push({
      method: request.method,
      route: request.routeOptions.url,
      url: request.url,
      hidden: schema?.hide === true,
      status: reply.statusCode,
      contentType: String(reply.getHeader("content-type") ?? "").split(";")[0]!.trim(),
      body: typeof payload === "string" ? payload : Buffer.isBuffer(payload) && !reply.getHeader("content-encoding") ? payload.toString("utf8") : null,
    });
  };
}

/** `/api/v1/orders/:orderId` -> `/api/v1/orders/{orderId}`; Fastify's trailing `*` is `{path}` (src/http/openapi.ts). */
export const documentedPath = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\*$/, "{path}");

/** The documented path (as a route pattern) that `url` falls under for `method`, the most literal one first. */
function templateOf(doc: Record<string, any>, method: string, url: string): string | undefined {
  const path = url.split("?")[0]!;
  const candidates = Object.keys(doc.paths ?? {}).filter((template) => {
    if (!doc.paths[template][method.toLowerCase()]) return false;
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{path\}$/, ".+").replace(/\{[^}]+\}/g, "[^/]+");
    return new RegExp(`^${pattern}$`).test(path);
  });
  const literal = (template: string) => template.replace(/\{[^}]+\}/g, "").length;
  const best = candidates.sort((a, b) => literal(b) - literal(a))[0];
  return best?.replace(/\{path\}$/, "*").replace(/\{([^}]+)\}/g, ":$1");
}

const pointer = (...segments: string[]) => segments.map((s) => encodeURIComponent(s.replace(/~/g, "~0").replace(/\//g, "~1"))).join("/");

/**
 * Checks answers against the document: each answer's status is documented for its operation (or a
 * `4XX`/`default` range), its media type is the documented one, and a JSON body matches the
 * documented schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 says). HEAD answers, hidden routes and
 * unknown paths are not operations.
 */
export function checkAnswers(doc: Record<string, any>, answers: readonly Answer[]): { undocumented: string[]; mismatches: string[]; checked: Set<string> } {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi.json");
  const validators = new Map<string, ValidateFunction>();
  const undocumented = new Set<string>();
  const mismatches = new Set<string>();
  const checked = new Set<string>();
  for (const answer of answers) {
    if (answer.method === "HEAD" || answer.hidden) continue;
    // The router's own refusals (an invalid or too long parameter) have no route: the URL names the operation.
    const route = answer.route ?? (answer.status === 404 ? undefined : templateOf(doc, answer.method, answer.url));
    if (route === undefined) continue;
    const path = documentedPath(route);
    const method = answer.method.toLowerCase();
    const operation = doc.paths?.[path]?.[method];
    const label = `${answer.method} ${path} ${answer.status}`;
    if (!operation) {
      undocumented.add(`${answer.method} ${path}: no such operation`);
      continue;
    }
    checked.add(`${answer.method} ${path}`);
    const status = String(answer.status);
    const key = [status, `${status[0]}XX`, "default"].find((k) => operation.responses?.[k]);
    if (!key) {
      undocumented.add(`${label}: ${answer.body?.slice(0, 160)}`);
      continue;
    }
    const content = operation.responses[key].content as Record<string, any> | undefined;
    if (!content) {
      if (answer.body) mismatches.add(`${label}: a body where none is documented: ${answer.body.slice(0, 120)}`);
      continue;
    }
    if (!content[answer.contentType]) {
      mismatches.add(`${label}: ${answer.contentType || "no content type"}, documented ${Object.keys(content).join(", ")}`);
      continue;
    }
    if (!/json$/.test(answer.contentType) || answer.body === null) continue;
    const ref = `openapi.json#/${pointer("paths", path, method, "responses", key, "content", answer.contentType, "schema")}`;
    let validate = validators.get(ref);
    if (!validate) validators.set(ref, (validate = ajv.compile({ $ref: ref })));
    if (!validate(JSON.parse(answer.body))) mismatches.add(`${label}: ${ajv.errorsText(validate.errors)}: ${answer.body.slice(0, 160)}`);
  }
  return { undocumented: [...undocumented], mismatches: [...mismatches], checked };
}
