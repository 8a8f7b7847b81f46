// The error catalogue is the one list: every code the source answers with is in it, with the status
// it is answered with, and docs/merchant-api.md "Error codes" is this table (UPDATE_DOCS=1 rewrites it).
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError, forbidden, notFound, unauthorized, validationError } from "../lib/errors.js";
import { ERROR_CODES, isErrorCode } from "./error-codes.js";

const root = path.resolve(import.meta.dirname, "../..");
const DOC = path.join(root, "docs/merchant-api.md");
const BEGIN = "<!-- error-codes: generated from src/http/error-codes.ts by src/http/error-codes.unit.test.ts -->";
const END = "<!-- /error-codes -->";
// SPEC.md sits beside the repository (../shared/spec/), not in it: checked where it is found.
const SPEC = process.env.SPEC_MD ?? path.resolve(root, "../shared/spec/SPEC.md");

/** The table docs/merchant-api.md shows: one row per code, in the catalogue's order. */
function catalogueTable(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, entry]) => {
    const texts = [entry.message, ...("spec" in entry ? entry.spec : [])].map((t) => `\`${t.replace(/\|/g, "\\|")}\``).join(", ");
    const cell = (text: string) => text.replace(/\|/g, "\\|");
    return `| \`${code}\` | ${entry.status} | ${texts} | ${cell(entry.meaning)} | ${cell(entry.fix)} |`;
  });
  const head = "| code | status | `error` text (the default first; other exact texts after it) | meaning | what to do |";
  return [BEGIN, head, "|---|---|---|---|---|", ...rows, END].join("\n");
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(file);
    // Test-only code is not the service: fake servers answer in their provider's codes.
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".test.ts") && !entry.name.startsWith("fake-") && !file.includes("/lib/testing/") ? [file] : [];
  });
}

describe("the error catalogue", () => {
  it("is listed in docs/merchant-api.md", () => {
    const doc = readFileSync(DOC, "utf8");
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start, `docs/merchant-api.md has no ${BEGIN}`).toBeGreaterThanOrEqual(0);
    const listed = doc.slice(start, end + END.length);
    if (process.env.UPDATE_DOCS === "1" && listed !== catalogueTable()) writeFileSync(DOC, doc.replace(listed, catalogueTable()));
    else expect(listed).toBe(catalogueTable());
  });

  it("holds every code the source answers with, at the status it is answered with", () => {
    const unknown: string[] = [];
    const otherStatus: string[] = [];
    for (const file of sourceFiles(path.join(root, "src"))) {
      const text = readFileSync(file, "utf8");
      const where = path.relative(root, file);
      // Bodies sent by hooks and handlers themselves: `code: "X"`, with the status on the same line when there is one.
      for (const line of text.split("\n")) {
        // FST_…: Fastify's own error codes, which the error handler translates.
        for (const [, code] of line.matchAll(/\bcode: "((?!FST_)[A-Z][A-Z0-9_]+)"/g)) {
          if (!isErrorCode(code!)) unknown.push(`${where}: ${code}`);
          const status = /\.code\((\d{3})\)/.exec(line)?.[1] ?? /status: (\d{3}), body:/.exec(line)?.[1];
          if (status && isErrorCode(code!) && ERROR_CODES[code].status !== Number(status)) otherStatus.push(`${where}: ${code} sent as ${status}`);
        }
      }
    }
    expect(unknown).toEqual([]);
    expect(otherStatus).toEqual([]);
  });

  it("has a status of an error, a text, a meaning and a fix for every code", () => {
    for (const [code, entry] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.status, code).toBeLessThan(600);
      expect(entry.message.length, code).toBeGreaterThan(0);
      // The errors page (/docs/errors) shows both: one line each.
      expect(entry.meaning.length, code).toBeGreaterThan(10);
      expect(entry.fix.length, code).toBeGreaterThan(5);
      expect(`${entry.meaning}${entry.fix}`, code).not.toContain("\n");
    }
  });

  it("gives the errors helpers their catalogue codes and default texts", () => {
    const made: [AppError, keyof typeof ERROR_CODES][] = [
      [notFound(), "NOT_FOUND"],
      [unauthorized(), "UNAUTHORIZED"],
      [forbidden(), "FORBIDDEN"],
    ];
    for (const [error, code] of made) expect([error.code, error.message]).toEqual([code, ERROR_CODES[code].message]);
    expect(validationError("x").code).toBe("VALIDATION_ERROR");
  });

  it.skipIf(!existsSync(SPEC))("holds SPEC.md's error table: each exact text under a code of its status, and its symbolic codes", () => {
    const spec = readFileSync(SPEC, "utf8");
    const errors = spec.slice(spec.indexOf("## Errors"), spec.indexOf("## Limits"));
    const texts = (code: keyof typeof ERROR_CODES) => {
      const entry = ERROR_CODES[code];
      return [entry.message, ...("spec" in entry ? entry.spec : [])] as string[];
    };
    const missing: string[] = [];
    // Rows whose text is in backticks are exact; the others describe a text.
    const rows = [...errors.matchAll(/^\| (\d{3}) \| `([^`]+)` \|/gm)];
    expect(rows.length).toBeGreaterThan(10);
    for (const [, status, text] of rows) {
      const held = Object.keys(ERROR_CODES).some((code) => isErrorCode(code) && ERROR_CODES[code].status === Number(status) && texts(code).includes(text!));
      if (!held) missing.push(`${status} ${text}`);
    }
    expect(missing).toEqual([]);
    const symbolic = /Symbolic error codes of the checkout API: (.*)$/m.exec(errors)?.[1] ?? "";
    const codes = [...symbolic.matchAll(/`([A-Z_]+)`/g)].map(([, code]) => code!);
    expect(codes.length).toBeGreaterThan(0);
    expect(codes.filter((code) => !isErrorCode(code))).toEqual([]);
  });
});
