// The orders list's statements use an index over 100 000 orders, 80 000 of them in one brand
// (PostgreSQL only: PGlite's plans say nothing about production). Guards the indexes of the orders
// table that src/orders/store.ts relies on; `npm run bench:orders` (issue 17) will time them at a million.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { createBrand } from "../../test/support/checkout.js";
import { testEngine } from "../../test/support/database.js";
import type { OrderListQuery } from "./schemas.js";
import { orderPageQuery } from "./store.js";

const ROWS = 100_000;
const SEARCH_INDEXES = ["orders_order_id_idx", "orders_brand_transaction_idx", "orders_brand_email_idx", "orders_brand_name_idx"];

describe.skipIf(testEngine !== "postgres")("orders listing plans (PostgreSQL)", () => {
  let t: TestApp;
  let big: string;
  beforeAll(async () => {
    t = await buildTestApp();
    big = (await createBrand(t)).brandId;
    const small = (await createBrand(t)).brandId;
    await t.deps.database.db.execute(sql`
      insert into orders (id, brand_id, kind, order_id, transaction_id, provider, amount_cents, currency, customer_email, customer_name, result, created_at, payment_status, paid_in_demo)
      select 'ord_plan_' || g,
             case when g % 5 = 0 then ${small} else ${big} end,
             case when g % 10 = 0 then 'upsell' else 'checkout' end,
             'plan-' || g,
             'txn_plan_' || g,
             (array['vault_gateway_a', 'vault_gateway_b', 'intent_gateway', 'order_crm_a', 'order_crm_b', 'cart_gateway', 'hosted_store'])[1 + g % 7],
             100 + g % 50000,
             'USD',
             'buyer' || g || '@example.com',
             'Buyer ' || g,
             '{}'::jsonb,
             timestamptz '2026-01-01' + make_interval(secs => g * 60),
             case when g % 100 = 0 then 'refunded' end,
             g % 3 = 0
      from generate_series(1, ${ROWS}) as g`);
    await t.deps.database.db.execute(sql`analyze orders`);
  });
  afterAll(() => t?.close());

  const cases: [string, Partial<OrderListQuery>][] = [
    ["no filter", {}],
    ["an order id", { q: "plan-507" }],
    ["a transaction id", { q: "txn_plan_507" }],
    ["the start of an email", { q: "buyer5071@" }],
    ["the start of a name", { q: "buyer 5071" }],
    ["a time range", { from: Date.UTC(2026, 0, 10), to: Date.UTC(2026, 0, 11) }],
    ["refunded", { status: "refunded" }],
    ["partially refunded", { status: "partially_refunded" }],
    ["failed", { status: "failed" }],
    ["real money, a provider", { test: false, provider: "intent_gateway" }],
    ["one mode (CONTRACT §39)", { livemode: true }],
  ];

  it.each(cases)("%s: no Seq Scan on orders", async (_name, filters) => {
    const query = orderPageQuery(t.deps.database.db, big, { limit: 25, ...filters }, null);
    const result = await t.deps.database.db.execute(sql`explain ${query}`);
    const plan = (result.rows as { "QUERY PLAN": string }[]).map((r) => r["QUERY PLAN"]).join("\n");
    expect(plan, plan).not.toMatch(/Seq Scan on orders/);
    expect(plan, plan).toMatch(/Index|Bitmap/);
    // A search reads the four search indexes (BitmapOr), not the brand's orders one by one.
    if (filters.q) for (const index of SEARCH_INDEXES) expect(plan, plan).toContain(index);
    // A status other than paid reads the few orders with something after the sale, not the brand's all.
    if (filters.status) expect(plan, plan).toContain("orders_brand_after_sale_idx");
  });

  it("a page after a cursor deep in the list reads from the index too", async () => {
    const query = orderPageQuery(t.deps.database.db, big, { limit: 25 }, { createdAt: Date.UTC(2026, 1, 1), id: "ord_plan_50000" });
    const result = await t.deps.database.db.execute(sql`explain ${query}`);
    const plan = (result.rows as { "QUERY PLAN": string }[]).map((r) => r["QUERY PLAN"]).join("\n");
    expect(plan, plan).not.toMatch(/Seq Scan on orders/);
    // The cursor bounds the index range: the scan starts at the cursor, not at the newest order.
    expect(plan, plan).toMatch(/Index Cond: .*created_at <=/);
  });
});
