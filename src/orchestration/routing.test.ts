// Issue 34 item 2 through HTTP: routing rules saved as versions per brand and mode, read back (current,
// history, one version), audited, validated (400 naming the field), roles and tenancy; the pay path's
// loader reads what was saved.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addUser, registerOwner, type Registered } from "../../test/support/admin.js";
import { buildTestApp, json, type TestApp } from "../../test/support/app.js";
import { auditActions, call } from "../../test/support/identity.js";
import { auditLogs, routingRuleVersions } from "../db/schema/index.js";
import { loadRouting, loadRoutingRules } from "../payments/routing/rules-store.js";

let t: TestApp;
let shop: Registered;
let rival: Registered;
beforeAll(async () => {
  t = await buildTestApp();
  shop = await registerOwner(t, "Routing Shop");
  rival = await registerOwner(t, "Rival Routing Shop");
});
afterAll(() => t.close());

const db = () => t.deps.database.db;

const splitRule = (extra: Record<string, unknown> = {}) => ({
  id: "rul_eu_split",
  name: "EU cards split",
  conditions: { currencies: ["eur"], binCountries: ["de", "fr"], amountMin: 1000, amountMax: 50_000 },
  target: { type: "split", splits: [{ provider: "vault_gateway_a", weight: 70 }, { provider: "vault_gateway_b", weight: 30 }] },
  caps: [{ provider: "vault_gateway_a", currency: "eur", dailyAmount: 5_000_000 }],
  ...extra,
});
const bestRule = { name: "Best of two", conditions: { cardBrands: ["visa"] }, target: { type: "best_of", providers: ["intent_gateway", "cart_gateway"] } };

const put = (body: Record<string, unknown>, session = shop.session) => call(t, "PUT", "/api/admin/routing", { session, body: { livemode: false, ...body } });
const get = (query = "", session = shop.session) => call(t, "GET", `/api/admin/routing${query}`, { session });

describe("routing rules API", () => {
  it("before any save: version 0, no rules, the default cascade limit, the card-taking providers", async () => {
    const res = await get("?livemode=true");
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toEqual({
      brandId: shop.brandId,
      livemode: true,
      version: 0,
      rules: [],
      maxProviders: 2,
      versions: [],
      providers: ["intent_gateway", "vault_gateway_a", "order_crm_a", "order_crm_b", "cart_gateway", "vault_gateway_b"],
    });
    // Without livemode: the brand's mode (test: it has no live credentials).
    expect(json(await get())).toMatchObject({ livemode: false, version: 0 });
  });

  it("an owner saves the ordered list as version 1, then 2; both readable, audited; the pay path loads the current one", async () => {
    const first = await put({ brandId: shop.brandId, rules: [splitRule(), bestRule], maxProviders: 3 });
    expect(first.statusCode, first.body).toBe(200);
    const saved = json(first);
    expect(saved).toMatchObject({ brandId: shop.brandId, livemode: false, version: 1, maxProviders: 3 });
    expect(saved.versions).toEqual([{ version: 1, createdAt: expect.any(Number), createdBy: shop.userId, createdByName: expect.any(String) }]);
    // Codes stored upper case, a made-up id for the rule without one, best_of's default exploration share.
    expect(saved.rules[0]).toEqual({
      id: "rul_eu_split",
      name: "EU cards split",
      conditions: { currencies: ["EUR"], binCountries: ["DE", "FR"], amountMin: 1000, amountMax: 50_000 },
      target: { type: "split", splits: [{ provider: "vault_gateway_a", weight: 70 }, { provider: "vault_gateway_b", weight: 30 }] },
      caps: [{ provider: "vault_gateway_a", currency: "EUR", dailyAmount: 5_000_000 }],
    });
    expect(saved.rules[1]).toMatchObject({ name: "Best of two", conditions: { cardBrands: ["visa"] }, target: { type: "best_of", providers: ["intent_gateway", "cart_gateway"], explorationPercent: 10 } });
    expect(saved.rules[1].id).toMatch(/^rul_/);

    // A new order (reordered, one removed), maxProviders omitted: kept from the current version.
    const second = await put({ rules: [saved.rules[1]] });
    expect(second.statusCode, second.body).toBe(200);
    expect(json(second)).toMatchObject({ version: 2, maxProviders: 3, rules: [{ id: saved.rules[1].id }] });
    expect(json(second).versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);

    const current = json(await get("?livemode=false"));
    expect(current).toMatchObject({ version: 2, rules: [saved.rules[1]] });
    const v1 = await call(t, "GET", "/api/admin/routing/versions/1?livemode=false", { session: shop.session });
    expect(v1.statusCode, v1.body).toBe(200);
    expect(json(v1)).toMatchObject({ version: 1, livemode: false, maxProviders: 3, createdBy: shop.userId, rules: saved.rules });
    expect((await call(t, "GET", "/api/admin/routing/versions/3?livemode=false", { session: shop.session })).statusCode).toBe(404);

    // The live rules are apart from the test ones.
    expect(json(await get("?livemode=true"))).toMatchObject({ version: 0, rules: [] });
    expect((await call(t, "GET", "/api/admin/routing/versions/1?livemode=true", { session: shop.session })).statusCode).toBe(404);

    const audits = (await db().select().from(auditLogs).where(and(eq(auditLogs.action, "routing.update"), eq(auditLogs.brandId, shop.brandId)))).sort((a, b) => (a.details as { version: number }).version - (b.details as { version: number }).version);
    expect(audits).toHaveLength(2);
    expect(audits[0]).toMatchObject({ actorId: shop.userId, resourceType: "routing_rules", resourceId: "test", success: true });
    expect(audits[0]!.details).toMatchObject({ livemode: false, version: 1, maxProviders: 3, rules: [{ id: "rul_eu_split", target: "split", providers: ["vault_gateway_a", "vault_gateway_b"] }, { name: "Best of two" }] });

    expect(await loadRouting(db(), shop.brandId, false)).toEqual({ rules: [saved.rules[1]], maxProviders: 3, version: 2 });
    expect(await loadRoutingRules(db(), shop.brandId, true)).toEqual([]);
    expect(await loadRouting(db(), shop.brandId, true)).toEqual({ rules: [], maxProviders: 2, version: 0 });
  });

  it("an empty list is a version too: back to the default rule", async () => {
    const res = await put({ rules: [], maxProviders: 1 });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ rules: [], maxProviders: 1 });
    expect((await loadRouting(db(), shop.brandId, false)).rules).toEqual([]);
  });

  it("saves at the same time get one version number each", async () => {
    const before = json(await get("?livemode=false")).version as number;
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => put({ rules: [splitRule({ name: `Concurrent ${i}` })] })));
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const rows = await db().select({ version: routingRuleVersions.version }).from(routingRuleVersions).where(and(eq(routingRuleVersions.brandId, shop.brandId), eq(routingRuleVersions.livemode, false)));
    expect(rows.map((r) => r.version).sort((a, b) => a - b).slice(-5)).toEqual([1, 2, 3, 4, 5].map((n) => before + n));
  });

  const invalid: { name: string; body: Record<string, unknown>; details: string }[] = [
    { name: "an unknown provider", body: { rules: [{ name: "x", target: { type: "provider", provider: "paypal" } }] }, details: "rules.0.target.provider" },
    { name: "a provider that takes no card (hosted_store)", body: { rules: [{ name: "x", target: { type: "provider", provider: "hosted_store" } }] }, details: "rules.0.target.provider" },
    { name: "a provider target without its provider", body: { rules: [{ name: "x", target: { type: "provider" } }] }, details: "rules.0.target.provider" },
    { name: "an empty split", body: { rules: [{ name: "x", target: { type: "split", splits: [] } }] }, details: "rules.0.target.splits" },
    { name: "a weight of 0", body: { rules: [splitRule({ target: { type: "split", splits: [{ provider: "vault_gateway_a", weight: 1 }, { provider: "vault_gateway_b", weight: 0 }] } })] }, details: "rules.0.target.splits.1.weight" },
    { name: "a negative weight", body: { rules: [splitRule({ target: { type: "split", splits: [{ provider: "vault_gateway_a", weight: -5 }] } })] }, details: "rules.0.target.splits.0.weight" },
    { name: "a split's unknown provider", body: { rules: [splitRule({ target: { type: "split", splits: [{ provider: "nope", weight: 1 }] }, caps: [] })] }, details: "rules.0.target.splits.0.provider" },
    { name: "best_of with one provider", body: { rules: [{ name: "x", target: { type: "best_of", providers: ["intent_gateway"] } }] }, details: "rules.0.target.providers" },
    { name: "best_of naming one provider twice", body: { rules: [{ name: "x", target: { type: "best_of", providers: ["intent_gateway", "intent_gateway"] } }] }, details: "rules.0.target.providers.1" },
    { name: "amountMin above amountMax", body: { rules: [bestRule, splitRule({ conditions: { amountMin: 5000, amountMax: 1000 } })] }, details: "rules.1.conditions.amountMin" },
    { name: "duplicate rule ids", body: { rules: [splitRule(), bestRule, splitRule()] }, details: "rules.2.id" },
    { name: "a cap on a provider the target does not name", body: { rules: [splitRule({ caps: [{ provider: "cart_gateway", currency: "EUR", dailyAmount: 1 }] })] }, details: "rules.0.caps.0.provider" },
    { name: "a BIN range from above to", body: { rules: [splitRule({ conditions: { binRanges: [{ from: "500000", to: "400000" }] } })] }, details: "rules.0.conditions.binRanges.0.from" },
    { name: "a BIN prefix of 5 digits", body: { rules: [splitRule({ conditions: { binRanges: [{ from: "40000", to: "499999" }] } })] }, details: "rules.0.conditions.binRanges.0.from" },
    { name: "an unknown card brand", body: { rules: [splitRule({ conditions: { cardBrands: ["elo2"] } })] }, details: "rules.0.conditions.cardBrands.0" },
    { name: "maxProviders of 5", body: { rules: [], maxProviders: 5 }, details: "maxProviders" },
    { name: "maxProviders of 0", body: { rules: [], maxProviders: 0 }, details: "maxProviders" },
    { name: "a rule id not of rul_", body: { rules: [splitRule({ id: "eu" })] }, details: "rules.0.id" },
  ];
  it.each(invalid)("400 VALIDATION_ERROR naming the field: $name", async ({ body, details }) => {
    const before = json(await get("?livemode=false")).version;
    const res = await put(body);
    expect(res.statusCode, res.body).toBe(400);
    expect(json(res)).toMatchObject({ code: "VALIDATION_ERROR", details });
    expect(json(await get("?livemode=false")).version).toBe(before);
  });

  it("a member reads but may not save; an admin saves", async () => {
    const member = await addUser(t, shop.session, "member", [shop.brandId]);
    expect((await get("?livemode=false", member.session)).statusCode).toBe(200);
    const refused = await put({ rules: [] }, member.session);
    expect(refused.statusCode).toBe(403);
    expect(json(refused)).toMatchObject({ code: "FORBIDDEN" });
    expect((await auditActions(t, member.userId)).map((a) => a.action)).not.toContain("routing.update");
    const admin = await addUser(t, shop.session, "admin", [shop.brandId]);
    const saved = await put({ rules: [bestRule] }, admin.session);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(json(saved).versions[0]).toMatchObject({ createdBy: admin.userId });
  });

  it("without a session: 401", async () => {
    expect((await call(t, "GET", "/api/admin/routing")).statusCode).toBe(401);
    expect((await call(t, "PUT", "/api/admin/routing", { body: { livemode: false, rules: [] } })).statusCode).toBe(401);
  });

  it("another brand's admin can neither read nor change this brand's rules", async () => {
    const before = await loadRouting(db(), shop.brandId, false);
    const read = await get(`?brandId=${shop.brandId}&livemode=false`, rival.session);
    expect(read.statusCode).toBe(404);
    expect(json(read)).toMatchObject({ code: "NOT_FOUND" });
    expect((await call(t, "GET", `/api/admin/routing/versions/1?brandId=${shop.brandId}&livemode=false`, { session: rival.session })).statusCode).toBe(404);
    const write = await put({ brandId: shop.brandId, rules: [] }, rival.session);
    expect(write.statusCode).toBe(404);
    expect(await loadRouting(db(), shop.brandId, false)).toEqual(before);
    // Its own brand's rules are its own: none of the shop's.
    expect(json(await get("?livemode=false", rival.session))).toMatchObject({ brandId: rival.brandId, version: 0, rules: [] });
  });
});
