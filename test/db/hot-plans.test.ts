// Every hot statement (src/db/hot.ts) is planned without a sequential scan of a large table, on both
// engines, once the tables hold tens of thousands of rows: a missing or unusable index shows here,
// not as a slow checkout in production.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Db } from "../../src/db/client.js";
import { hotStatements } from "../../src/db/hot.js";
import { buildTestApp, type TestApp } from "../support/app.js";
import { post } from "../support/checkout.js";
import { completeCheckoutViaApi } from "../support/completed-checkout.js";
import { PAY_BY_PROVIDER } from "../support/provider-payments.js";
import { orderClaims, signToken } from "../support/checkout.js";

/** Copies of each seeded row: tables end up with 2 000 to 50 000 rows. */
const COPIES = 2_000;
/** A table this large must be reached through an index. */
const LARGE = 1_500;

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  await seedThroughTheApi();
  await multiplyRows(t.deps.database.db);
}, 600_000);
afterAll(() => t?.close());

/** Rows of every kind a buyer's flow writes, made through the public API. */
async function seedThroughTheApi() {
  for (const provider of ["vault_gateway_b", "intent_gateway", "order_crm_b", "hosted_store", "cart_gateway"] as const) {
    const original = await completeCheckoutViaApi(t, { provider });
    const session = await post(t, "/api/upsell/create-session", {
      orderId: `${original.orderId}-up`,
      originalOrderId: original.orderId,
      customerEmail: "ada@example.com",
      paymentMethodToken: original.paymentMethodToken,
      provider,
      offers: [{ id: "a", name: "A", price: 500 }, { id: "b", name: "B", price: 700 }],
    });
    const sessionId = session.json().sessionId as string;
    await post(t, "/api/upsell/accept", { sessionId, offerId: "a" });
    await post(t, "/api/upsell/decline", { sessionId, offerId: "b" });
  }
  // A declined payment (payment_declines) on an initialized checkout.
  const order = orderClaims({ amount: 1000, currency: "USD" });
  await post(t, "/api/checkout/initialize", { token: await signToken(t, order), provider: "vault_gateway_b" });
  await PAY_BY_PROVIDER.vault_gateway_b(t, order.orderId as string, "4000000000000002").catch(() => {});
}

async function query<Row = Record<string, unknown>>(db: Db, text: string): Promise<Row[]> {
  const result = (await db.execute(sql.raw(text))) as unknown as { rows: Row[] };
  return result.rows;
}

/**
 * Copies every seeded row of the tables the hot statements name COPIES times, suffixing the text columns of unique indexes so the copies
 * stay unique; foreign keys are not checked while copying (session_replication_role = replica).
 */
// Generated and identity columns (outbox_events.seq) are left to the database in the copies.
async function multiplyRows(db: Db) {
  await db.transaction(async (tx) => {
    await query(tx, "set local session_replication_role = replica");
    const tables = await query<{ table: string }>(tx, "select tablename as table from pg_tables where schemaname = current_schema()");
    const read = hotStatements().map((s) => s.text).join("\n");
    for (const { table } of tables.filter(({ table }) => new RegExp(`\\b${table}\\b`).test(read))) {
      const columns = await query<{ name: string; type: string; unique: boolean }>(
        tx,
        `select a.attname as name, format_type(a.atttypid, a.atttypmod) as type,
           exists (select 1 from pg_index i where i.indrelid = a.attrelid and i.indisunique and a.attnum = any(i.indkey)) as unique
         from pg_attribute a where a.attrelid = '${table}'::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = '' and a.attidentity = '' order by a.attnum`,
      );
      const varied = columns.filter(isVaried);
      if (columns.some((c) => c.unique) && !varied.some((c) => c.unique)) continue; // a unique key we cannot vary: leave the table as it is
      const select = columns.map((c) => (isVaried(c) ? `${c.name} || '_' || g` : c.name)).join(", ");
      const names = columns.map((c) => c.name).join(", ");
      await query(tx, `insert into ${table} (${names}) select ${select} from ${table}, generate_series(1, ${COPIES}) g`);
    }
  });
  await query(db, "analyze");
}

/**
 * Text columns that identify one row or one buyer (keys, order and session ids, tokens, addresses) get
 * a copy number, so their values are as distinct as in production; tenant columns (brand, organization)
 * and kinds (provider, status) keep their few values, as they do in production.
 */
function isVaried(column: { name: string; type: string; unique: boolean }): boolean {
  if (column.type !== "text" || column.name === "brand_id" || column.name === "organization_id") return false;
  return column.unique || /(^|_)(id|ref|token)$/.test(column.name) || column.name === "client_address";
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Plan Rows": number;
  Plans?: PlanNode[];
}

/** An index read expected to return more rows than this is reading the wrong index (or a range it should not). */
const WIDE_INDEX_READ = 100;

/** Sequential scans of large tables, and index reads of many rows (an index that does not fit the lookup). */
function costlyReads(node: PlanNode, large: Set<string>, out: string[] = []): string[] {
  if (node["Node Type"] === "Seq Scan" && large.has(node["Relation Name"] ?? "")) out.push(`seq scan of ${node["Relation Name"]}`);
  if (node["Node Type"] === "Bitmap Index Scan" && node["Plan Rows"] > WIDE_INDEX_READ) out.push(`${node["Plan Rows"]} rows from ${node["Index Name"]}`);
  for (const child of node.Plans ?? []) costlyReads(child, large, out);
  return out;
}

/** The generic plan (the one a prepared statement keeps), whatever the parameter values. */
async function genericPlan(db: Db, text: string): Promise<PlanNode> {
  const parameters = Math.max(0, ...[...text.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  return db.transaction(async (tx) => {
    await query(tx, "set local plan_cache_mode = force_generic_plan");
    await query(tx, `prepare hot_plan_check as ${text}`);
    try {
      const [row] = await query<{ "QUERY PLAN": unknown }>(tx, `explain (format json) execute hot_plan_check(${Array(parameters).fill("null").join(", ")})`);
      const plan = typeof row!["QUERY PLAN"] === "string" ? JSON.parse(row!["QUERY PLAN"] as string) : row!["QUERY PLAN"];
      return (plan as { Plan: PlanNode }[])[0]!.Plan;
    } finally {
      await query(tx, "deallocate hot_plan_check");
    }
  });
}

it("fills the tables the hot statements read", async () => {
  const sizes = await query<{ table: string; rows: number }>(
    t.deps.database.db,
    "select relname as table, reltuples::int as rows from pg_class where relname in ('checkouts', 'orders', 'upsell_sessions', 'demo_provider_records', 'payment_declines')",
  );
  for (const { table, rows } of sizes) expect(rows, table).toBeGreaterThan(LARGE);
});

it("plans every hot statement without a sequential scan of a large table or a wide index read", async () => {
  const db = t.deps.database.db;
  const large = new Set(
    (await query<{ table: string }>(db, `select relname as table from pg_class where relkind = 'r' and reltuples > ${LARGE}`)).map((r) => r.table),
  );
  const statements = hotStatements();
  expect(statements.length).toBeGreaterThanOrEqual(10);
  const offenders: string[] = [];
  for (const statement of statements) {
    const reads = costlyReads(await genericPlan(db, statement.text), large);
    if (reads.length) offenders.push(`${statement.name}: ${reads.join(", ")}`);
  }
  expect(offenders).toEqual([]);
});
