// Migration 0005_commission_currency: commissions written before it take their order's currency
// (else their checkout's, else the USD the pages used to assume), and the column is then required.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrationStep, type MigrationStep } from "../../test/support/migration-step.js";

let step: MigrationStep;
beforeAll(async () => {
  step = await migrationStep("0005_commission_currency");
});
afterAll(() => step?.close());

it("backfills each commission's currency from its order, else its checkout, else USD; new rows need one", async () => {
  await step.migrateBefore();
  const at = sql`now()`;
  await step.db.execute(sql`insert into organizations (id, name, slug, created_at) values ('org_1', 'Org', 'org', ${at})`);
  await step.db.execute(sql`insert into brands (id, organization_id, name, slug, created_at) values ('brand_1', 'org_1', 'Brand', 'brand', ${at})`);
  await step.db.execute(sql`insert into orders (id, brand_id, kind, order_id, transaction_id, provider, amount_cents, currency, customer_email, customer_name, result, created_at)
    values ('ord_eur', 'brand_1', 'checkout', 'm-1', 'tx-1', 'vault_gateway_a', 1000, 'EUR', 'a@example.com', 'A', '{}', ${at})`);
  await step.db.execute(sql`insert into checkouts (id, brand_id, order_id, token_hash, claims, amount_cents, currency, status, token_expires_at, created_at, updated_at)
    values ('chk_2', 'brand_1', 'm-2', 'h', '{}', 2000, 'GBP', 'completed', ${at}, ${at}, ${at})`);
  for (const [id, orderRef, orderId] of [["com_order", "ord_eur", "m-1"], ["com_checkout", "ord_gone", "m-2"], ["com_none", "ord_none", "m-3"]]) {
    await step.db.execute(sql`insert into commissions (id, organization_id, brand_id, order_ref, order_id, salesperson_id, order_amount_cents, commission_amount_cents, commission_rate, commission_type, status, created_at, updated_at)
      values (${id}, 'org_1', 'brand_1', ${orderRef}, ${orderId}, 'sp_1', 1000, 100, 0.1, 'percentage', 'pending', ${at}, ${at})`);
  }

  await step.migrateAll();

  expect(await step.rowsOf(sql`select id, currency from commissions order by id`)).toEqual([
    { id: "com_checkout", currency: "GBP" },
    { id: "com_none", currency: "USD" },
    { id: "com_order", currency: "EUR" },
  ]);
  await expect(
    step.db.execute(sql`insert into commissions (id, organization_id, brand_id, order_ref, order_id, salesperson_id, order_amount_cents, commission_amount_cents, commission_rate, commission_type, status, created_at, updated_at)
      values ('com_new', 'org_1', 'brand_1', 'ord_new', 'm-4', 'sp_1', 1000, 100, 0.1, 'percentage', 'pending', now(), now())`),
  ).rejects.toThrow();
});
