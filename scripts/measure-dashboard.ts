// Measures GET /api/admin/dashboard on a brand with many orders (docs/admin.md "Dashboard figures"):
//   TEST_DB=postgres DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx scripts/measure-dashboard.ts [orders]
// Seeds the orders with one INSERT … generate_series over the last 365 days, then times 20 requests
// per window (in-process, app.inject: the query and the handler, no network).
import { sql } from "drizzle-orm";
import { buildTestApp } from "../test/support/app.js";
import { registerOwner } from "../test/support/admin.js";
import { call } from "../test/support/identity.js";

const count = Number(process.argv[2] ?? 200_000);
const t = await buildTestApp({});
try {
  const owner = await registerOwner(t, "Bench Org");
  const now = t.clock.now();
  const seeded = Date.now();
  await t.deps.database.db.execute(sql`
    insert into orders (id, brand_id, kind, order_id, transaction_id, provider, amount_cents, currency, customer_email, customer_name, result, created_at)
    select 'ord_bench_' || g, ${owner.brandId}, case when g % 5 = 0 then 'upsell' else 'checkout' end, 'o' || g, 't' || g, 'vault_gateway_b',
           1000 + g % 9000, case when g % 10 = 0 then 'EUR' else 'USD' end, 'a@example.com', 'A', '{}'::jsonb,
           to_timestamp((${now} - (g::bigint * 31536000000 / ${count})) / 1000.0)
    from generate_series(1, ${count}) g`);
  await t.deps.database.db.execute(sql`analyze orders`);
  console.log(`${count} orders seeded in ${((Date.now() - seeded) / 1000).toFixed(1)} s (${process.env.TEST_DB ?? "pglite"})`);
  for (const days of [7, 30, 366]) {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const res = await call(t, "GET", `/api/admin/dashboard?days=${days}`, { session: owner.session });
      times.push(performance.now() - started);
      if (res.statusCode !== 200) throw new Error(res.body);
    }
    times.sort((a, b) => a - b);
    console.log(`days=${days}: p50 ${times[10]!.toFixed(1)} ms, max ${times[19]!.toFixed(1)} ms`);
  }
} finally {
  await t.close();
}
