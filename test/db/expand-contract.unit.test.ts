// The expand/contract rule (docs/operations.md "Migrations"): a release's migrations run while the
// previous release still serves (rolling deploy, MIGRATE_ON_START or `npm run migrate` first), so
// each statement must leave the old code working: new tables, nullable columns or columns with a
// default, indexes; never a drop, rename, type change or new NOT NULL / constraint / unique index on
// a table the old code writes. Checked on the SQL of every migration (what actually runs); the two
// written before the rule are listed with why they were acceptable then. The contract step (dropping
// what the previous release already stopped using) is allowed where the statement says so in a
// comment line just before it: `-- contract: <what> is unused since <release>`. test/db/migration-ahead
// covers the other half: this code keeps working with a column a later release adds.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const DIR = "src/db/migrations";
/** Migrations from before the rule, run only on databases with no previous release serving. */
const BEFORE_THE_RULE: Record<string, string> = {
  "0004_offer_stats_shards_token_index.sql": "replaced a primary key by sharded rows before any release ran it",
  "0005_commission_currency.sql": "backfilled then SET NOT NULL on commissions, before the first production release",
};

/** What a statement does that the previous release's code could trip on, or null. */
export function contractViolation(statement: string, createdHere: Set<string>, uniqueIndexes: Set<string>): string | null {
  const s = statement.replace(/\s+/g, " ").trim();
  const table = /^ALTER TABLE "([^"]+)"/i.exec(s)?.[1];
  if (table && createdHere.has(table)) return null; // a table of this migration: no old code uses it
  if (/^DROP TABLE/i.test(s)) return "drops a table";
  if (/ RENAME /i.test(s)) return "renames";
  if (/ DROP COLUMN /i.test(s)) return "drops a column";
  if (/ DROP CONSTRAINT /i.test(s)) return "drops a constraint the old code may rely on (ON CONFLICT)";
  if (/ ALTER COLUMN "[^"]+" (SET NOT NULL|SET DATA TYPE|TYPE )/i.test(s)) return "tightens or retypes a column";
  // An identity column fills itself, as a default does: the old code's inserts still work.
  if (/ ADD COLUMN /i.test(s) && / NOT NULL/i.test(s) && !/ DEFAULT | GENERATED (ALWAYS|BY DEFAULT) AS IDENTITY/i.test(s)) return "adds a NOT NULL column without a default";
  if (table && / ADD CONSTRAINT /i.test(s)) return "adds a constraint to a table the old code writes";
  const unique = /^CREATE UNIQUE INDEX (?:IF NOT EXISTS )?"[^"]+" ON "([^"]+)"/i.exec(s);
  if (unique && !createdHere.has(unique[1]!)) return "adds a unique index to a table the old code writes";
  const dropped = /^DROP INDEX (?:IF EXISTS )?"([^"]+)"/i.exec(s)?.[1];
  if (dropped && uniqueIndexes.has(dropped)) return "drops a unique index the old code may rely on (ON CONFLICT)";
  return null;
}

describe("every migration expands only (runs under the previous release's code)", () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith(".sql")).sort();
  const uniqueIndexes = new Set<string>();
  const violations: string[] = [];
  const excused = new Set<string>();
  for (const file of files) {
    const raw = readFileSync(path.join(DIR, file), "utf8").split("--> statement-breakpoint");
    const contracted = new Set(raw.filter((s) => /^\s*-- contract: \S/m.test(s)).map((s) => s.replace(/^\s*--.*$/gm, "").trim()));
    const statements = raw.map((s) => s.replace(/^\s*--.*$/gm, "").trim()).filter(Boolean);
    const createdHere = new Set(statements.map((s) => /^CREATE TABLE (?:IF NOT EXISTS )?"([^"]+)"/i.exec(s)?.[1]).filter((t): t is string => !!t));
    for (const statement of statements) {
      const problem = file === "0000_init.sql" || contracted.has(statement) ? null : contractViolation(statement, createdHere, uniqueIndexes);
      if (problem && BEFORE_THE_RULE[file]) excused.add(file);
      if (problem && !BEFORE_THE_RULE[file]) violations.push(`${file}: ${problem}: ${statement.slice(0, 120)}`);
      const unique = /^CREATE UNIQUE INDEX (?:IF NOT EXISTS )?"([^"]+)"/i.exec(statement)?.[1];
      if (unique) uniqueIndexes.add(unique);
    }
  }

  it("has no statement that would break the previous release", () => {
    expect(files.length).toBeGreaterThan(10);
    expect(violations).toEqual([]);
    // The exceptions are real ones (the list cannot hide a later migration).
    expect([...excused].sort()).toEqual(Object.keys(BEFORE_THE_RULE).sort());
  });

  it("recognises what breaks the previous release (the check can fail)", () => {
    const none = new Set<string>();
    expect(contractViolation('ALTER TABLE "orders" DROP COLUMN "note";', none, none)).toBe("drops a column");
    expect(contractViolation('ALTER TABLE "orders" RENAME COLUMN "a" TO "b";', none, none)).toBe("renames");
    expect(contractViolation('ALTER TABLE "orders" ADD COLUMN "x" integer NOT NULL;', none, none)).toBe("adds a NOT NULL column without a default");
    expect(contractViolation('ALTER TABLE "orders" ADD COLUMN "x" integer DEFAULT 0 NOT NULL;', none, none)).toBeNull();
    expect(contractViolation('ALTER TABLE "orders" ADD COLUMN "x" bigint NOT NULL GENERATED ALWAYS AS IDENTITY;', none, none)).toBeNull();
    expect(contractViolation('ALTER TABLE "orders" ALTER COLUMN "x" SET NOT NULL;', none, none)).toBe("tightens or retypes a column");
    expect(contractViolation('CREATE UNIQUE INDEX "o_key" ON "orders" USING btree ("x");', none, none)).toBe("adds a unique index to a table the old code writes");
    expect(contractViolation('CREATE UNIQUE INDEX "n_key" ON "news" USING btree ("x");', new Set(["news"]), none)).toBeNull();
    expect(contractViolation('DROP INDEX "o_key";', none, new Set(["o_key"]))).toMatch(/unique index/);
    expect(contractViolation('DROP INDEX "o_idx";', none, new Set(["o_key"]))).toBeNull();
  });
});
