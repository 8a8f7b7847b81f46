// The order detail's one extra statement, its payment attempts, reads payment_attempts_order_idx
// (brand_id, order_id), not the table (PostgreSQL only: PGlite's plans say nothing about production).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { createBrand } from "../../test/support/checkout.js";
import { testEngine } from "../../test/support/database.js";
import { attemptsOfQuery } from "./store.js";

const ROWS = 50_000;

describe.skipIf(testEngine !== "postgres")("order attempts plan (PostgreSQL)", () => {
  let t: TestApp;
  let brandId: string;
  beforeAll(async () => {
    t = await buildTestApp();
    brandId = (await createBrand(t)).brandId;
    await t.deps.database.db.execute(sql`
      insert into payment_attempts (id, brand_id, livemode, order_id, provider, cascade_index, rule_name, route_reason, result, amount_cents, currency, created_at)
      select 'att_plan_' || g, ${brandId}, false, 'plan-' || (g / 2), 'vault_gateway_a', g % 2, 'default', 'priority', 'approved', 1000, 'USD', timestamptz '2026-01-01' + make_interval(secs => g)
      from generate_series(1, ${ROWS}) as g`);
    await t.deps.database.db.execute(sql`analyze payment_attempts`);
  });
  afterAll(() => t?.close());

  it("reads the attempts of one order through payment_attempts_order_idx", async () => {
    const query = attemptsOfQuery(t.deps.database.db, brandId, "plan-1234", false);
    const result = await t.deps.database.db.execute(sql`explain ${query}`);
    const plan = (result.rows as { "QUERY PLAN": string }[]).map((r) => r["QUERY PLAN"]).join("\n");
    expect(plan, plan).not.toMatch(/Seq Scan on payment_attempts/);
    expect(plan, plan).toContain("payment_attempts_order_idx");
    expect(await query).toHaveLength(2);
  });
});
