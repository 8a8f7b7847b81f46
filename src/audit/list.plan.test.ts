// The audit listing's statements use an index over 100 000 records (PostgreSQL only: PGlite's plans
// say nothing about production). Guards the indexes of src/db/schema/audit.ts.
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../test/support/app.js";
import { testEngine } from "../../test/support/database.js";
import { AuditLogQuery } from "./schemas.js";
import { auditLogQueries, EXACT_COUNT_LIMIT } from "./list.js";

const ROWS = 100_000;
const ORGS = 500;

describe.skipIf(testEngine !== "postgres")("audit log listing plans (PostgreSQL)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
    const db = t.deps.database.db;
    await db.execute(sql`
      insert into audit_logs (id, organization_id, brand_id, actor_type, actor_id, action, resource_type, resource_id, success, created_at)
      select 'aud_plan_' || g,
             'org_plan_' || (g % ${ORGS}),
             'brand_plan_' || (g % ${ORGS * 2}),
             (array['user', 'system', 'api'])[1 + g % 3],
             'usr_' || (g % 997),
             (array['user.login', 'user.logout', 'commission.approve', 'commission.cancel', 'salesperson.login', 'checkout_link.generate', 'brand.switch'])[1 + g % 7],
             (array['user', 'commission', 'salesperson', 'checkout_link', 'brand'])[1 + g % 5],
             'res_' || g,
             g % 10 <> 0,
             timestamptz '2026-01-01' + make_interval(secs => g * 60)
      from generate_series(1, ${ROWS}) as g`);
    await db.execute(sql`analyze audit_logs`);
  });
  afterAll(() => t?.close());

  const base = { page: 1, limit: 20 } as AuditLogQuery;
  const scope = { organizationId: "org_plan_7" };
  const cases: [string, Partial<AuditLogQuery>][] = [
    ["no filter", {}],
    ["action", { action: "commission.approve" }],
    ["resourceType", { resourceType: "salesperson" }],
    ["actorType and success", { actorType: "api", success: false }],
    ["date range", { startDate: Date.UTC(2026, 0, 10), endDate: Date.UTC(2026, 1, 10) }],
    ["brandId", { brandId: "brand_plan_7" }],
    ["search", { search: "login" }],
    ["search for an id", { search: "res_507" }],
    ["a deep page", { page: 9 }],
  ];

  it.each(cases)("%s: page, total and stats use an index, no Seq Scan on audit_logs", async (_name, filters) => {
    const queries = auditLogQueries(t.deps.database.db, scope, { ...base, ...filters });
    for (const [label, query] of Object.entries(queries).filter(([label]) => label !== "matches")) {
      const result = await t.deps.database.db.execute(sql`explain ${query}`);
      const plan = (result.rows as { "QUERY PLAN": string }[]).map((r) => r["QUERY PLAN"]).join("\n");
      expect(plan, `${label}\n${plan}`).not.toMatch(/Seq Scan on audit_logs/);
      expect(plan, `${label}\n${plan}`).toMatch(/Index|Bitmap/);
    }
  });

  it("the filtered page has real rows; the capped count stops one past the exact limit", async () => {
    const queries = auditLogQueries(t.deps.database.db, scope, { ...base, search: "login" });
    const rows = await queries.page;
    const [{ total }] = await queries.total;
    expect(rows.length).toBeGreaterThan(0);
    expect(total).toBeGreaterThan(rows.length);
    expect(total).toBeLessThanOrEqual(EXACT_COUNT_LIMIT + 1);
  });
});
