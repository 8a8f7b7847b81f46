import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, brandOfScope } from "../http/auth.js";
import { notFound, validationError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { readMode } from "../payments/mode.js";
import type { RoutingRule } from "../payments/routing/route.js";
import { loadRouting } from "../payments/routing/rules-store.js";
import { PAYMENT_PROVIDERS, PROVIDER_MANIFEST, type PaymentProviderType } from "../providers/manifest.js";
import type { RoutingQuery, RoutingReply, RoutingRuleBody, RoutingVersionReply, UpdateRoutingBody, VersionParams } from "./schemas.js";
import { findRoutingVersion, insertRoutingVersion, listRoutingVersions, lockNextRoutingVersion } from "./store.js";

// Routing rules of the back office (issue 34 item 2, docs/orchestration.md "Routing rules"): read any
// version, save a new one. Who may edit provider settings (admin, owner) may edit routing.

type Verb<I> = { ctx: Ctx; input: I };

/** Providers that take a card on our checkout page: the only ones a rule may name (the hosted store charges on its own page). */
export const CARD_TAKING_PROVIDERS: readonly PaymentProviderType[] = PAYMENT_PROVIDERS.filter((p) => PROVIDER_MANIFEST[p].cardForm);
const DEFAULT_EXPLORATION_PERCENT = 10;

const brandNotFound = () => notFound("Brand not found");

/** The session's brand; a brandId naming another brand (of this organization or any other) is 404. */
async function brandOf(ctx: Ctx, least: "member" | "admin", brandId: string | undefined) {
  const scope = assertRole(ctx, least);
  const selected = await brandOfScope(ctx.db, scope);
  if (brandId !== undefined && brandId !== selected) throw brandNotFound();
  return { scope, brandId: selected };
}

const invalid = (field: string, what: string) => validationError(`Invalid request: ${field} ${what}`, field);

function checkedProvider(value: string, field: string): PaymentProviderType {
  if (!(PAYMENT_PROVIDERS as readonly string[]).includes(value)) throw invalid(field, `names no provider: ${value} (one of ${CARD_TAKING_PROVIDERS.join(", ")})`);
  if (!CARD_TAKING_PROVIDERS.includes(value as PaymentProviderType)) throw invalid(field, `is ${value}, which takes no card on the checkout page: a rule may name ${CARD_TAKING_PROVIDERS.join(", ")}`);
  return value as PaymentProviderType;
}

function checkedTarget(target: RoutingRuleBody["target"], field: string): RoutingRule["target"] {
  switch (target.type) {
    case "provider":
      if (target.provider === undefined) throw invalid(`${field}.provider`, "is needed by a target of type provider");
      return { type: "provider", provider: checkedProvider(target.provider, `${field}.provider`) };
    case "split": {
      const splits = target.splits ?? [];
      if (splits.length === 0) throw invalid(`${field}.splits`, "needs at least one provider with a weight");
      const seen = new Set<string>();
      return {
        type: "split",
        splits: splits.map((split, i) => {
          const provider = checkedProvider(split.provider, `${field}.splits.${i}.provider`);
          if (seen.has(provider)) throw invalid(`${field}.splits.${i}.provider`, `names ${provider} twice`);
          seen.add(provider);
          if (!(split.weight > 0)) throw invalid(`${field}.splits.${i}.weight`, "must be positive");
          return { provider, weight: split.weight };
        }),
      };
    }
    case "best_of": {
      const providers = target.providers ?? [];
      if (providers.length < 2) throw invalid(`${field}.providers`, "needs at least two providers to choose the best of");
      const checked = providers.map((p, i) => checkedProvider(p, `${field}.providers.${i}`));
      const twice = checked.findIndex((p, i) => checked.indexOf(p) !== i);
      if (twice >= 0) throw invalid(`${field}.providers.${twice}`, `names ${checked[twice]} twice`);
      return { type: "best_of", providers: checked, explorationPercent: target.explorationPercent ?? DEFAULT_EXPLORATION_PERCENT };
    }
  }
}

const targetProviders = (target: RoutingRule["target"]): PaymentProviderType[] =>
  target.type === "provider" ? [target.provider] : target.type === "split" ? target.splits.map((s) => s.provider) : target.providers;

/** A rule as stored: its id made up when omitted, codes in upper case, only the members its target's type uses. */
function checkedRule(input: RoutingRuleBody, field: string): RoutingRule {
  const c = input.conditions ?? {};
  if (c.amountMin !== undefined && c.amountMax !== undefined && c.amountMin >= c.amountMax) throw invalid(`${field}.conditions.amountMin`, "must be below amountMax (amountMax is exclusive)");
  c.binRanges?.forEach((range, i) => {
    if (range.from.slice(0, 6) > range.to.slice(0, 6)) throw invalid(`${field}.conditions.binRanges.${i}.from`, "must not be above to");
  });
  const upper = (codes: string[] | undefined) => (codes && codes.length > 0 ? [...new Set(codes.map((code) => code.toUpperCase()))] : undefined);
  const some = <T>(values: T[] | undefined) => (values && values.length > 0 ? values : undefined);
  const conditions: RoutingRule["conditions"] = {};
  if (c.amountMin !== undefined) conditions.amountMin = c.amountMin;
  if (c.amountMax !== undefined) conditions.amountMax = c.amountMax;
  const currencies = upper(c.currencies);
  if (currencies) conditions.currencies = currencies;
  const countries = upper(c.countries);
  if (countries) conditions.countries = countries;
  const cardBrands = some(c.cardBrands);
  if (cardBrands) conditions.cardBrands = [...new Set(cardBrands)];
  const binRanges = some(c.binRanges);
  if (binRanges) conditions.binRanges = binRanges.map((r) => ({ from: r.from, to: r.to }));
  const binCountries = upper(c.binCountries);
  if (binCountries) conditions.binCountries = binCountries;
  const productIds = some(c.productIds);
  if (productIds) conditions.productIds = productIds;
  const funnelIds = some(c.funnelIds);
  if (funnelIds) conditions.funnelIds = funnelIds;
  if (c.buyer) conditions.buyer = c.buyer;

  const target = checkedTarget(input.target, `${field}.target`);
  const named = new Set(targetProviders(target));
  const caps = (input.caps ?? []).map((cap, i) => {
    const provider = checkedProvider(cap.provider, `${field}.caps.${i}.provider`);
    if (!named.has(provider)) throw invalid(`${field}.caps.${i}.provider`, `is ${provider}, which the rule's target does not name`);
    return { provider, currency: cap.currency.toUpperCase(), dailyAmount: cap.dailyAmount };
  });
  caps.forEach((cap, i) => {
    if (caps.findIndex((other) => other.provider === cap.provider && other.currency === cap.currency) !== i) throw invalid(`${field}.caps.${i}`, `caps ${cap.provider} in ${cap.currency} twice`);
  });
  const name = input.name.trim();
  if (!name) throw invalid(`${field}.name`, "is empty");
  return { id: input.id ?? newId("rul"), name, conditions, target, ...(caps.length ? { caps } : {}) };
}

function checkedRules(rules: RoutingRuleBody[]): RoutingRule[] {
  const seen = new Set<string>();
  return rules.map((input, i) => {
    const rule = checkedRule(input, `rules.${i}`);
    if (seen.has(rule.id)) throw invalid(`rules.${i}.id`, `repeats ${rule.id}: rule ids are unique in the list`);
    seen.add(rule.id);
    return rule;
  });
}

/** `GET /api/admin/routing` (any member): the current rules of a mode (default: the brand's), with the version history. */
export async function getRouting({ ctx, input }: Verb<RoutingQuery>): Promise<RoutingReply> {
  const { brandId } = await brandOf(ctx, "member", input.brandId);
  const livemode = await readMode(ctx, brandId, input.livemode);
  const [current, versions] = await Promise.all([loadRouting(ctx.db, brandId, livemode), listRoutingVersions(ctx.db, brandId, livemode)]);
  return {
    brandId,
    livemode,
    version: current.version,
    rules: current.rules,
    maxProviders: current.maxProviders,
    versions: versions.map((v) => ({ version: v.version, createdAt: v.createdAt.getTime(), createdBy: v.createdBy, createdByName: v.createdByName })),
    providers: [...CARD_TAKING_PROVIDERS],
  };
}

/** `GET /api/admin/routing/versions/<version>` (any member): one saved version of a mode; 404 when it has none of that number. */
export async function getRoutingVersion({ ctx, input }: Verb<VersionParams & { query: RoutingQuery }>): Promise<RoutingVersionReply> {
  const { brandId } = await brandOf(ctx, "member", input.query.brandId);
  const livemode = await readMode(ctx, brandId, input.query.livemode);
  const row = await findRoutingVersion(ctx.db, brandId, livemode, input.version);
  if (!row) throw notFound("Routing version not found");
  return {
    brandId,
    livemode,
    version: row.version,
    rules: row.rules as RoutingRule[],
    maxProviders: row.maxProviders,
    createdAt: row.createdAt.getTime(),
    createdBy: row.createdBy,
    createdByName: row.createdByName,
  };
}

/**
 * `PUT /api/admin/routing` (admin, owner): the mode's whole ordered list as a new version (the next
 * number; earlier versions stay readable), audited. maxProviders omitted: the current version's.
 */
export async function saveRouting({ ctx, input }: Verb<UpdateRoutingBody>): Promise<RoutingReply> {
  const { scope, brandId } = await brandOf(ctx, "admin", input.brandId);
  const rules = checkedRules(input.rules);
  const at = new Date(ctx.clock.now());
  await withTransaction(ctx.db, async (tx) => {
    const { next, maxProviders: current } = await lockNextRoutingVersion(tx, brandId, input.livemode);
    const maxProviders = input.maxProviders ?? current ?? 2;
    await insertRoutingVersion(tx, { brandId, livemode: input.livemode, version: next, rules, cascadeMaxProviders: maxProviders, createdBy: scope.userId, createdAt: at });
    await recordAudit(tx, ctx, {
      action: "routing.update",
      resourceType: "routing_rules",
      resourceId: input.livemode ? "live" : "test",
      success: true,
      organizationId: scope.organizationId,
      brandId,
      details: { livemode: input.livemode, version: next, maxProviders, rules: rules.map((r) => ({ id: r.id, name: r.name, target: r.target.type, providers: targetProviders(r.target) })) },
    });
  });
  return getRouting({ ctx, input: { brandId, livemode: input.livemode } });
}
