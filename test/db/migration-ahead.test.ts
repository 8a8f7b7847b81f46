// A migration that adds a NOT NULL column with a default may run before every instance has the code
// that knows it (a rolling deploy). The one-statement writes of completion, upsell answers and the
// demo ledger name their columns, so the new column takes its default: before, they sent it NULL
// and every completion answered 500 until the deploy finished.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../support/app.js";
import { acceptedUpsell, completeCheckoutViaApi } from "../support/completed-checkout.js";

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
  for (const table of ["orders", "order_line_items", "outbox_events", "commissions", "upsell_sessions", "upsell_offer_results", "demo_provider_records"]) {
    await t.deps.database.db.execute(sql.raw(`alter table ${table} add column added_by_a_later_release integer not null default 7`));
  }
});
afterAll(() => t.close());

describe("a column this code does not know yet", () => {
  it("completion, create-session and accept still write their rows, the new column at its default", async () => {
    const done = await completeCheckoutViaApi(t);
    await acceptedUpsell(t, done, { id: "a", name: "Offer a", price: 500 });
    const rows = await t.deps.database.db.execute(sql`select added_by_a_later_release as v from orders where order_id in (${done.orderId}, ${`${done.orderId}-up`})`);
    expect((rows as unknown as { rows: { v: number }[] }).rows.map((r) => r.v)).toEqual([7, 7]);
  });
});
