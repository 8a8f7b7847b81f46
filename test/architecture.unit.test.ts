// Imports inside src/ go the allowed directions (docs/architecture.md): the table below is the rule
// book, and a second test proves the check catches imports that break it.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * A file matching `from` (and none of `notFrom`) may not import a file matching `to` (and none of
 * `notTo`). Globs are over repository paths: `*` stays inside one folder, `**` crosses folders.
 * Test-only files (TEST_ONLY) are not checked as importers: tests may reach anything.
 */
interface Rule {
  why: string;
  from: string[];
  notFrom?: string[];
  to: string[];
  notTo?: string[];
}

const ROUTES = ["src/**/routes.ts", "src/**/*-routes.ts"];
const STORES = ["src/**/store.ts", "src/**/*-store.ts"];
/** Compiled for tests only (tsconfig.build.json leaves them out of dist/). */
const TEST_ONLY = ["test/**", "src/**/*.test.ts", "src/**/fake-*.ts", "src/lib/testing/**"];

export const RULES: Rule[] = [
  { why: "lib/ holds helpers with no feature knowledge", from: ["src/lib/**"], to: ["src/**"], notTo: ["src/lib/**"] },
  { why: "config/ reads the environment and knows no feature", from: ["src/config/**"], to: ["src/**"], notTo: ["src/config/**", "src/lib/**"] },
  { why: "db/ (client, schema, migrations) knows no feature", from: ["src/db/**"], to: ["src/**"], notTo: ["src/db/**", "src/config/**", "src/lib/**"] },
  {
    why: "http/ is cross-cutting: it knows no feature (exceptions below)",
    from: ["src/http/**"],
    to: ["src/**"],
    notTo: ["src/http/**", "src/db/**", "src/config/**", "src/lib/**", "src/ctx.ts"],
  },
  { why: "access and tenancy live in http/auth.ts: no feature imports admin/", from: ["src/**"], notFrom: ["src/admin/**", "src/app.ts"], to: ["src/admin/**"] },
  { why: "routes are registered by app.ts (or by a routes file gathering its sub-folders')", from: ["src/**"], notFrom: ["src/app.ts", ...ROUTES], to: ROUTES },
  { why: "a store holds its feature's queries: no routes, no HTTP", from: STORES, to: [...ROUTES, "src/http/**"] },
  { why: "production code imports no test file, test helper or fake server", from: ["src/**"], to: TEST_ONLY },
  {
    why: "providers/ holds the adapters, their fakes and wire schemes: no feature, no HTTP (payments/ is our side of every provider, issue 32)",
    from: ["src/providers/**"],
    to: ["src/**"],
    notTo: ["src/providers/**", "src/lib/**", "src/config/**"],
  },
  {
    why: "a provider adapter translates and nothing else: no database, no payment rules, no checkout or upsell (STYLE 'Providers')",
    from: [
      "src/providers/*/adapter.ts",
      "src/providers/*/demo.ts",
      "src/providers/*/provider.ts",
      "src/providers/*/webhook.ts",
      "src/providers/demo/**",
      "src/providers/vault-direct-post.ts",
      "src/providers/http-client.ts",
      "src/providers/webhook-scheme-kit.ts",
      "src/providers/webhook-schemes.ts",
    ],
    to: ["src/db/**", "src/payments/**", "src/checkout/**", "src/upsell/**"],
  },
  {
    why: "a real adapter does not lean on the demo one: what both implement is in the folder's provider.ts (issue 14)",
    from: ["src/providers/*/adapter.ts", "src/providers/*/provider.ts", "src/providers/*/webhook.ts", "src/providers/vault-direct-post.ts"],
    to: ["src/providers/*/demo.ts", "src/providers/demo/**"],
  },
  {
    why: "a provider's demo.ts is its demo adapter, built only by the demo registry: ids and interfaces come from provider.ts",
    from: ["src/**"],
    notFrom: ["src/providers/demo/index.ts"],
    to: ["src/providers/*/demo.ts"],
  },
  // payments/ owns our side of every provider, its HTTP routes included: those gather each other, nothing else there imports one.
  { why: "payment rules (payments/) know no HTTP route", from: ["src/payments/**"], notFrom: ROUTES, to: ROUTES },
  { why: "payments' routes gather only payments' routes", from: ROUTES.map((glob) => glob.replace("src/**", "src/payments/**")), to: ROUTES, notTo: ["src/payments/**"] },
  { why: "payments/ knows no administration", from: ["src/payments/**"], to: ["src/admin/**"] },
];

/** Single imports a rule allows after all, each with its reason. */
export const EXCEPTIONS: { from: string; to: string; why: string }[] = [
  { from: "src/http/errors.ts", to: "src/providers/**", why: "ProviderError is rendered as 502/503 by the one error handler" },
  { from: "src/providers/demo/ledger.ts", to: "src/db/schema/index.ts", why: "the DemoLedger interface names its record's shape (a type import); payments/demo-ledger.ts implements it" },
  { from: "src/providers/settings-store.ts", to: "src/db/**", why: "a brand's provider settings are stored beside the catalogue of their fields; the registry reads them" },
  { from: "src/providers/registry.ts", to: "src/db/client.ts", why: "the database handle the registry reads settings and the demo ledger with (a type import)" },
  { from: "src/providers/webhook-scheme-kit.ts", to: "src/db/schema/disputes.ts", why: "DisputeStatus, the statuses a provider's dispute notice is translated into (a type import, re-exported to the schemes)" },
  { from: "src/payments/endpoints/hosted-store.ts", to: "src/providers/hosted-store/demo.ts", why: "DEMO_UNIT_PRICE_CENTS: the demo store's catalogue price for line items without one" },
];

function globToRegExp(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (glob.startsWith("**/", i)) {
      source += "(?:.*/)?";
      i += 2;
    } else if (glob.startsWith("**", i)) {
      source += ".*";
      i += 1;
    } else if (c === "*") source += "[^/]*";
    else source += c.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

const matcher = (globs: string[] = []) => {
  const patterns = globs.map(globToRegExp);
  return (file: string) => patterns.some((p) => p.test(file));
};

/** The repository paths a file imports (relative specifiers only; packages are not rules' business). */
function importsOf(file: string, text: string): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, ".ts"));
}

/** Every import of `files` (path → text) that breaks a rule, as "importer -> imported: why". */
export function violations(files: Map<string, string>): string[] {
  const isTestOnly = matcher(TEST_ONLY);
  const rules = RULES.map((r) => ({ why: r.why, from: matcher(r.from), notFrom: matcher(r.notFrom), to: matcher(r.to), notTo: matcher(r.notTo) }));
  const exceptions = EXCEPTIONS.map((e) => ({ from: matcher([e.from]), to: matcher([e.to]) }));
  const found: string[] = [];
  for (const [file, text] of files) {
    if (isTestOnly(file)) continue;
    for (const imported of importsOf(file, text)) {
      if (exceptions.some((e) => e.from(file) && e.to(imported))) continue;
      for (const rule of rules) {
        if (rule.from(file) && !rule.notFrom(file) && rule.to(imported) && !rule.notTo(imported)) found.push(`${file} -> ${imported}: ${rule.why}`);
      }
    }
  }
  return found;
}

function sourceFiles(root: string, dir = "src"): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) for (const [f, t] of sourceFiles(root, relative)) files.set(f, t);
    else if (/\.tsx?$/.test(entry.name)) files.set(relative, readFileSync(path.join(root, relative), "utf8"));
  }
  return files;
}

describe("import directions", () => {
  it("every import in src/ goes an allowed direction", () => {
    const root = path.resolve(import.meta.dirname, "..");
    const files = sourceFiles(root);
    expect(files.size).toBeGreaterThan(100);
    expect(violations(files)).toEqual([]);
  });

  it("catches imports that go against the rules", () => {
    const broken = new Map([
      ["src/marketing/lists.ts", 'import type { AdminScope } from "../admin/access.js";'],
      ["src/domains/store.ts", 'import { registerDomainRoutes } from "./routes.js";\nimport { callerCtx } from "../http/auth.js";'],
      ["src/lib/ids.ts", 'export { verifyCheckoutToken } from "../checkout/token.js";'],
      ["src/db/client.ts", 'const events = await import("../outbox/events.js");'],
      ["src/deps.ts", 'import { startFakeHosting } from "./domains/fake-hosting.js";\nimport { buildTestApp } from "../test/support/app.js";'],
      ["src/upsell/accept-offer.ts", 'import { registerUpsellRoutes } from "./routes.js";'],
      ["src/http/rate-limit.ts", 'import { findSession } from "../identity/store.js";'],
      ["src/providers/cart-gateway/adapter.ts", 'import { PROVIDER, type CartGatewayAdapter } from "./demo.js";'],
      ["src/providers/intent-gateway/challenge.ts", 'import type { Ctx } from "../../ctx.js";\nimport { resolvePayment } from "../../payments/attempts.js";'],
      ["src/payments/attempts.ts", 'import { registerProviderRoutes } from "./routes.js";'],
      ["src/payments/routes.ts", 'import { registerCheckoutRoutes } from "../checkout/routes.js";'],
      // Allowed: tests reach anything; a feature uses http/, db/, lib/ and another feature's verbs; payments' routes gather each other.
      ["src/marketing/lists.test.ts", 'import { registerDirectoryRoutes } from "../admin/directory-routes.js";'],
      ["src/marketing/sources.ts", 'import { assertRole } from "../http/auth.js";\nimport { recordAudit } from "../audit/record.js";'],
      ["src/payments/endpoints/intent-gateway-routes.ts", 'import { registerChallengeRoutes } from "../challenge/routes.js";\nimport { ctxOf } from "../../http/ctx.js";'],
    ]);
    expect(violations(broken)).toEqual([
      "src/marketing/lists.ts -> src/admin/access.ts: access and tenancy live in http/auth.ts: no feature imports admin/",
      "src/domains/store.ts -> src/domains/routes.ts: routes are registered by app.ts (or by a routes file gathering its sub-folders')",
      "src/domains/store.ts -> src/domains/routes.ts: a store holds its feature's queries: no routes, no HTTP",
      "src/domains/store.ts -> src/http/auth.ts: a store holds its feature's queries: no routes, no HTTP",
      "src/lib/ids.ts -> src/checkout/token.ts: lib/ holds helpers with no feature knowledge",
      "src/db/client.ts -> src/outbox/events.ts: db/ (client, schema, migrations) knows no feature",
      "src/deps.ts -> src/domains/fake-hosting.ts: production code imports no test file, test helper or fake server",
      "src/deps.ts -> test/support/app.ts: production code imports no test file, test helper or fake server",
      "src/upsell/accept-offer.ts -> src/upsell/routes.ts: routes are registered by app.ts (or by a routes file gathering its sub-folders')",
      "src/http/rate-limit.ts -> src/identity/store.ts: http/ is cross-cutting: it knows no feature (exceptions below)",
      "src/providers/cart-gateway/adapter.ts -> src/providers/cart-gateway/demo.ts: a real adapter does not lean on the demo one: what both implement is in the folder's provider.ts (issue 14)",
      "src/providers/cart-gateway/adapter.ts -> src/providers/cart-gateway/demo.ts: a provider's demo.ts is its demo adapter, built only by the demo registry: ids and interfaces come from provider.ts",
      "src/providers/intent-gateway/challenge.ts -> src/ctx.ts: providers/ holds the adapters, their fakes and wire schemes: no feature, no HTTP (payments/ is our side of every provider, issue 32)",
      "src/providers/intent-gateway/challenge.ts -> src/payments/attempts.ts: providers/ holds the adapters, their fakes and wire schemes: no feature, no HTTP (payments/ is our side of every provider, issue 32)",
      "src/payments/attempts.ts -> src/payments/routes.ts: routes are registered by app.ts (or by a routes file gathering its sub-folders')",
      "src/payments/attempts.ts -> src/payments/routes.ts: payment rules (payments/) know no HTTP route",
      "src/payments/routes.ts -> src/checkout/routes.ts: payments' routes gather only payments' routes",
    ]);
  });
});

/**
 * The layers of src/, top to bottom (docs/architecture.md "Layers"). A room is a top-level folder of
 * src/ or a file directly in it; rooms of one layer may import each other's files, a room imports the
 * layers below it, and an import of a room in a layer above is an import running up.
 */
export const LAYERS: string[][] = [
  ["main.ts", "migrate.ts", "rotate-keys.ts", "cli.ts"],
  ["app.ts", "deps.ts"],
  ["merchant-api/", "admin/"],
  ["funnels/"],
  ["checkout/", "upsell/", "orders/", "receipts/", "pages/", "orchestration/"],
  ["identity/", "salespeople/", "commissions/", "domains/", "marketing/", "merchant-credentials/", "webhooks/", "metrics/", "audit/"],
  ["payments/"],
  ["http/"],
  ["ctx.ts"],
  ["providers/"],
  ["jobs/", "outbox/"],
  ["db/"],
  ["config/"],
  ["lib/"],
];

const roomOf = (file: string) => {
  const [, first, second] = file.split("/");
  return second === undefined ? first! : `${first}/`;
};

/** Each pair of rooms "importer -> imported" where the imported room's layer is above the importer's, with the files that make it. */
export function importsRunningUp(files: Map<string, string>, layers = LAYERS): Map<string, string[]> {
  const layerOf = new Map(layers.flatMap((rooms, i) => rooms.map((room) => [room, i] as const)));
  const isTestOnly = matcher(TEST_ONLY);
  const up = new Map<string, string[]>();
  for (const [file, text] of files) {
    if (isTestOnly(file) || !file.startsWith("src/")) continue;
    for (const imported of importsOf(file, text)) {
      if (!imported.startsWith("src/") || isTestOnly(imported)) continue;
      const [from, to] = [roomOf(file), roomOf(imported)];
      const [fromLayer, toLayer] = [layerOf.get(from), layerOf.get(to)];
      if (fromLayer === undefined) throw new Error(`${from} is in no layer of LAYERS: add it`);
      if (toLayer === undefined) throw new Error(`${to} is in no layer of LAYERS: add it`);
      if (toLayer >= fromLayer) continue;
      const pair = `${from} -> ${to}`;
      up.set(pair, [...(up.get(pair) ?? []), `${file} -> ${imported}`]);
    }
  }
  return up;
}

/** The import circles among `files` (strongly connected groups of two or more files, or a file importing itself). */
export function importCircles(files: Map<string, string>): string[][] {
  const isTestOnly = matcher(TEST_ONLY);
  const graph = new Map<string, string[]>();
  for (const [file, text] of files) {
    if (isTestOnly(file)) continue;
    graph.set(file, importsOf(file, text).map((f) => (files.has(f) ? f : f.replace(/\.ts$/, ".tsx"))).filter((f) => files.has(f) && !isTestOnly(f)));
  }
  // Tarjan's algorithm, iteratively deep enough for this tree.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const to of graph.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)!.includes(file)) circles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

describe("layers", () => {
  const root = path.resolve(import.meta.dirname, "..");

  // Issue 32 took them from 21 to 0: a lower layer that needs something of a higher one is handed
  // it from app.ts (a function or resolver), as payments/incoming gets the dispute handler.
  it("no import in src/ runs up the layers", () => {
    const up = importsRunningUp(sourceFiles(root));
    expect([...up].map(([pair, imports]) => `${pair} (${imports.length}: ${imports.join(", ")})`)).toEqual([]);
  });

  it("no import circles in src/ or web/src/", () => {
    expect(importCircles(new Map([...sourceFiles(root), ...sourceFiles(root, "web/src")]))).toEqual([]);
  });

  it("counts an import from a lower layer to a higher one, and finds a circle", () => {
    const files = new Map([
      ["src/lib/ids.ts", 'import { verifyCheckoutToken } from "../checkout/token.js";'],
      ["src/checkout/token.ts", 'import { newId } from "../lib/ids.js";'],
      ["src/checkout/store.ts", 'import { Config } from "../config/index.js";'],
      ["src/config/index.ts", ""],
    ]);
    expect([...importsRunningUp(files).keys()]).toEqual(["lib/ -> checkout/"]);
    expect(importCircles(files)).toEqual([["src/checkout/token.ts", "src/lib/ids.ts"]]);
  });
});
