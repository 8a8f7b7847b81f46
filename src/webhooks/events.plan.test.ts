// The events API's statements use outbox_events_brand_mode_created_idx over 100 000 events, 80 000 of
// them in one brand (PostgreSQL only: PGlite's plans say nothing about production).
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { createBrand } from "../../test/support/checkout.js";
import { testEngine } from "../../test/support/database.js";
import { eventPageQuery, type EventFilters } from "./events-store.js";

const ROWS = 100_000;
const INDEX = "outbox_events_brand_mode_created_idx";

describe.skipIf(testEngine !== "postgres")("events API plans (PostgreSQL)", () => {
  let t: TestApp;
  let big: string;
  const scope = () => ({ brandId: big, livemode: false, notBefore: Date.UTC(2026, 0, 1) });
  beforeAll(async () => {
    t = await buildTestApp();
    big = (await createBrand(t)).brandId;
    const small = (await createBrand(t)).brandId;
    await t.deps.database.db.execute(sql`
      insert into outbox_events (id, brand_id, type, payload, created_at, dispatched_at, receipt_at, livemode)
      select 'evt_plan_' || g,
             case when g % 5 = 0 then ${small} else ${big} end,
             (array['checkout.created', 'checkout.completed', 'payment.succeeded', 'order.confirmed', 'refund.succeeded'])[1 + g % 5],
             '{}'::jsonb,
             timestamptz '2026-01-01' + make_interval(secs => g * 20),
             timestamptz '2026-01-01' + make_interval(secs => g * 20),
             timestamptz '2026-01-01' + make_interval(secs => g * 20),
             g % 7 = 0
      from generate_series(1, ${ROWS}) as g`);
    await t.deps.database.db.execute(sql`analyze outbox_events`);
  });
  afterAll(() => t?.close());

  const plan = async (query: ReturnType<typeof eventPageQuery>) => {
    const result = await t.deps.database.db.execute(sql`explain ${query}`);
    return (result.rows as { "QUERY PLAN": string }[]).map((r) => r["QUERY PLAN"]).join("\n");
  };

  const cases: [string, EventFilters][] = [
    ["no filter", {}],
    ["one type", { types: ["refund.succeeded"] }],
    ["two types", { types: ["order.confirmed", "refund.succeeded"] }],
    ["a created range", { createdGte: Date.UTC(2026, 0, 10), createdLte: Date.UTC(2026, 0, 11) }],
  ];

  it.each(cases)("%s: the brand-mode index, no Seq Scan", async (_name, filters) => {
    const text = await plan(eventPageQuery(t.deps.database.db, scope(), filters, { limit: 20 }));
    expect(text, text).not.toMatch(/Seq Scan on outbox_events/);
    expect(text, text).toContain(INDEX);
  });

  it("a page after (or before) a cursor deep in the list starts at the cursor", async () => {
    const cursor = { createdAt: new Date(Date.UTC(2026, 0, 10)), seq: 40_000 };
    for (const page of [{ limit: 20, olderThan: cursor }, { limit: 20, newerThan: cursor }]) {
      const text = await plan(eventPageQuery(t.deps.database.db, scope(), {}, page));
      expect(text, text).toContain(INDEX);
      expect(text, text).toMatch(/Index Cond: .*ROW\(created_at, seq\) [<>]/);
    }
  });
});
