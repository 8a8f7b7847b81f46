// Migration 0025_events_api (issue 33): keys that held every scope keep every scope (they gain
// events:read and webhooks:write); keys made with fewer keep exactly theirs. Events already in the
// outbox get an insertion order (seq) and stay listable.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { migrationStep, type MigrationStep } from "../../test/support/migration-step.js";

let step: MigrationStep;
beforeAll(async () => {
  step = await migrationStep("0025_events_api");
});
afterAll(() => step?.close());

it("gives events:read and webhooks:write to keys that held all four scopes, and a seq to every event", async () => {
  await step.migrateBefore();
  const all = ["checkouts:write", "orders:read", "orders:refund", "upsell:write"];
  for (const [id, scopes] of [["key_all", all], ["key_some", ["orders:read"]], ["key_reordered", [...all].reverse()]] as const) {
    await step.db.execute(sql`insert into api_keys (id, organization_id, brand_id, name, prefix, key_hash, scopes, created_at)
      values (${id}, 'org_1', 'brand_1', ${id}, 'sk_x', ${`hash_${id}`}, ${JSON.stringify(scopes)}::jsonb, now())`);
  }
  for (const id of ["evt_a", "evt_b"]) {
    await step.db.execute(sql`insert into outbox_events (id, brand_id, type, payload, created_at) values (${id}, 'brand_1', 'order.confirmed', '{}', now())`);
  }

  await step.migrateAll();

  expect(await step.rowsOf(sql`select id, scopes from api_keys order by id`)).toEqual([
    { id: "key_all", scopes: [...all, "events:read", "webhooks:write"] },
    { id: "key_reordered", scopes: [...[...all].reverse(), "events:read", "webhooks:write"] },
    { id: "key_some", scopes: ["orders:read"] },
  ]);
  const events = await step.rowsOf(sql`select id, seq::int as seq from outbox_events order by seq`);
  expect(events.map((e) => e.id).sort()).toEqual(["evt_a", "evt_b"]);
  expect(new Set(events.map((e) => e.seq)).size).toBe(2);
  // New rows get the next seq without naming it; naming one is refused (the database owns it).
  await step.db.execute(sql`insert into outbox_events (id, brand_id, type, payload, created_at) values ('evt_c', 'brand_1', 'order.confirmed', '{}', now())`);
  expect(await step.rowsOf(sql`select id from outbox_events order by seq desc limit 1`)).toEqual([{ id: "evt_c" }]);
  await expect(step.db.execute(sql`insert into outbox_events (id, brand_id, type, payload, created_at, seq) values ('evt_d', 'brand_1', 'x', '{}', now(), 99)`)).rejects.toThrow();
});
