// The pages' API types come from the server's TypeBox schemas through one file,
// web/src/shared/api-types.ts, and only as types: no server module may reach the browser bundle,
// except the dependency-free provider manifest, through web/src/shared/providers.ts alone, and the
// dependency-free address rules (src/lib/address-rules.ts), through web/src/shared/address-rules.ts alone.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const WEB_SRC = join(import.meta.dirname, "../../web/src");
const API_TYPES = "shared/api-types.ts";
const PROVIDERS = "shared/providers.ts";
const MANIFEST = /^(\.\.\/)+src\/providers\/manifest$/;
/** Issue 36: the address rules by country, one dependency-free table for the page and the server. */
const ADDRESS_RULES = "shared/address-rules.ts";
const RULES_MODULE = /^(\.\.\/)+src\/lib\/address-rules$/;

const sourcesOf = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourcesOf(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));

/** Each import or re-export statement of a file, with whether it is type-only and where it points. */
export function importsOf(source: string): { typeOnly: boolean; from: string }[] {
  return [...source.matchAll(/^(import|export)\s+(type\s+)?[^;]*?\sfrom\s+"([^"]+)"/gms)].map((m) => ({ typeOnly: Boolean(m[2]), from: m[3] }));
}

const reachesServer = (from: string) => /^(\.\.\/)+src\//.test(from);

describe("API types derived from the server schemas", () => {
  it("only shared/api-types.ts imports from src/, and only with `import type`", () => {
    const offending: string[] = [];
    for (const file of sourcesOf(WEB_SRC)) {
      const name = relative(WEB_SRC, file);
      for (const { typeOnly, from } of importsOf(readFileSync(file, "utf8"))) {
        const allowed = (name === API_TYPES && typeOnly) || (name === PROVIDERS && MANIFEST.test(from)) || (name === ADDRESS_RULES && RULES_MODULE.test(from));
        if (reachesServer(from) && !allowed) offending.push(`${name}: ${from}`);
      }
    }
    expect(offending).toEqual([]);
    expect(importsOf(readFileSync(join(WEB_SRC, API_TYPES), "utf8")).filter((i) => reachesServer(i.from)).length).toBeGreaterThan(5);
  });

  it("tells a value import from a type-only one (a check that could not fail would guard nothing)", () => {
    const source = 'import type { A } from "../../../src/a/schemas";\nimport { B } from "../../../src/b/schemas";\nimport { useState } from "react";';
    expect(importsOf(source)).toEqual([
      { typeOnly: true, from: "../../../src/a/schemas" },
      { typeOnly: false, from: "../../../src/b/schemas" },
      { typeOnly: false, from: "react" },
    ]);
    expect(importsOf(source).filter((i) => reachesServer(i.from) && !i.typeOnly)).toHaveLength(1);
  });
});
