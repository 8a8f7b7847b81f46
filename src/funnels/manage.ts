import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import type { Static } from "typebox";
import type { FunnelCondition, FunnelConditionGroup, FunnelStep, FunnelTrigger } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, brandOfScope } from "../http/auth.js";
import { validationError } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import { funnelNotFound } from "../upsell/errors.js";
import { findFunnelOfBrand, type FunnelWithVersion } from "../upsell/funnel/store.js";
import { backToDraft, duplicateVariantId, minAboveMax, variantNotFound } from "./errors.js";
import type { FunnelCondition as FunnelConditionSchema, FunnelTrigger as FunnelTriggerSchema } from "./schemas.js";
import type { CreateFunnelBody, FunnelIdParams, FunnelReply, FunnelsReply, FunnelView, PromoteBody, UpdateFunnelBody } from "./schemas.js";
import { insertFunnel, insertFunnelVersion, listFunnelsOfBrand, replaceFunnelVersion, updateFunnel } from "./store.js";

type Verb<I> = { ctx: Ctx; input: I };

export const DEFAULT_PRIORITY = 100;
export const DEFAULT_MIN_SAMPLE = 300;
const EVERY_ORDER: FunnelTrigger = { match: "all", conditions: [] };

export function funnelView(row: FunnelWithVersion): FunnelView {
  return {
    id: row.id,
    name: row.name,
    priority: row.priority,
    status: row.status,
    version: row.currentVersion,
    minSamplePerVariant: row.minSamplePerVariant,
    commissionRate: row.commissionRate,
    trigger: row.trigger,
    steps: row.steps,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
}

/** Variant ids are made up when omitted, kept when given, and unique in the funnel (they key counters and session offers). */
function normalizedSteps(steps: CreateFunnelBody["steps"]): FunnelStep[] {
  const seen = new Set<string>();
  return steps.map((step, stepIndex) => ({
    variants: step.variants.map((variant, variantIndex) => {
      const id = variant.id ?? newId("var");
      if (seen.has(id)) throw duplicateVariantId(`steps.${stepIndex}.variants.${variantIndex}.id`);
      for (const [name, offer] of [["offer", variant.offer], ["downsell", variant.downsell]] as const) {
        // Every offer needs a price: its own, or one per currency.
        if (offer && offer.price === undefined && Object.keys(offer.prices ?? {}).length === 0) {
          throw validationError(`Invalid request: steps.${stepIndex}.variants.${variantIndex}.${name} needs price or prices (by ISO 4217 code)`, `steps.${stepIndex}.variants.${variantIndex}.${name}.price`);
        }
      }
      seen.add(id);
      return { id, weight: variant.weight ?? 1, offer: variant.offer, ...(variant.downsell ? { downsell: variant.downsell } : {}) };
    }),
  }));
}

type ConditionInput = Static<typeof FunnelConditionSchema>;

/** A condition with exactly the members its type uses; 400 naming `field` when one it needs is missing or wrong. */
function checkedCondition(input: ConditionInput, field: string): FunnelCondition {
  const invalid = (what: string) => validationError(`Invalid request: ${field} ${what}`, field);
  switch (input.type) {
    case "product":
      if (!input.productIds && !input.productNames) throw invalid("needs productIds or productNames");
      return { type: "product", ...(input.productIds ? { productIds: input.productIds } : {}), ...(input.productNames ? { productNames: input.productNames } : {}) };
    case "orderTotal":
      if (input.min === undefined && input.max === undefined) throw invalid("needs min or max");
      if (input.min !== undefined && input.max !== undefined && input.min > input.max) throw minAboveMax(field);
      return { type: "orderTotal", ...(input.min !== undefined ? { min: input.min } : {}), ...(input.max !== undefined ? { max: input.max } : {}) };
    case "currency":
    case "country": {
      const length = input.type === "currency" ? 3 : 2;
      if (!input.in || input.in.some((code) => code.length !== length)) throw invalid(`needs in: a list of ${input.type === "currency" ? "ISO 4217 currency" : "ISO 3166-1 alpha-2 country"} codes`);
      return { type: input.type, in: input.in };
    }
    case "firstOrder":
      if (input.value === undefined) throw invalid("needs value");
      return { type: "firstOrder", value: input.value };
  }
}

function checkedTrigger(trigger: Static<typeof FunnelTriggerSchema> | undefined): FunnelTrigger {
  if (!trigger) return EVERY_ORDER;
  return {
    match: trigger.match,
    conditions: trigger.conditions.map((node, index): FunnelCondition | FunnelConditionGroup => {
      const field = `trigger.conditions.${index}`;
      if (node.type !== "group") return checkedCondition(node as ConditionInput, field);
      if (!node.match || !node.conditions) throw validationError(`Invalid request: ${field} is a group: it needs match and conditions`, field);
      return { type: "group", match: node.match, conditions: node.conditions.map((c, i) => checkedCondition(c, `${field}.conditions.${i}`)) };
    }),
  };
}

async function brandOf(ctx: Ctx, least: "member" | "admin") {
  const scope = assertRole(ctx, least);
  return { scope, brandId: await brandOfScope(ctx.db, scope) };
}

/** `GET /api/admin/funnels` (any member): the brand's funnels, in the order they are tried. */
export async function listFunnels({ ctx }: { ctx: Ctx }): Promise<FunnelsReply> {
  const { brandId } = await brandOf(ctx, "member");
  return { funnels: (await listFunnelsOfBrand(ctx.db, brandId)).map(funnelView) };
}

/** `GET /api/admin/funnels/<id>` (any member); another brand's funnel is 404. */
export async function getFunnel({ ctx, input }: Verb<FunnelIdParams>): Promise<FunnelReply> {
  const { brandId } = await brandOf(ctx, "member");
  const funnel = await findFunnelOfBrand(ctx.db, brandId, input.id);
  if (!funnel) throw funnelNotFound();
  return { success: true, funnel: funnelView(funnel) };
}

/** `POST /api/admin/funnels` (admin, owner): version 1, a draft unless said. */
export async function createFunnel({ ctx, input }: Verb<CreateFunnelBody>): Promise<FunnelReply> {
  const { scope, brandId } = await brandOf(ctx, "admin");
  const at = new Date(ctx.clock.now());
  const id = newId("fnl");
  const trigger = checkedTrigger(input.trigger);
  const steps = normalizedSteps(input.steps);
  const funnel = {
    id,
    brandId,
    name: input.name,
    priority: input.priority ?? DEFAULT_PRIORITY,
    status: input.status ?? "draft",
    currentVersion: 1,
    minSamplePerVariant: input.minSamplePerVariant ?? DEFAULT_MIN_SAMPLE,
    commissionRate: input.commissionRate ?? null,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
  };
  await withTransaction(ctx.db, async (tx) => {
    await insertFunnel(tx, funnel, { funnelId: id, version: 1, trigger, steps, createdBy: scope.userId, createdAt: at });
    await recordAudit(tx, ctx, { action: "funnel.create", resourceType: "funnel", resourceId: id, success: true, brandId, details: { name: funnel.name, status: funnel.status } });
  });
  return { success: true, funnel: funnelView({ ...funnel, trigger, steps }) };
}

/**
 * `PUT /api/admin/funnels/<id>` (admin, owner). A new trigger or new steps make a new version unless
 * the funnel is a draft (no session can have started with it); name, priority, status and the
 * sample size are the funnel's own and change in place. A funnel that ran never goes back to draft.
 */
export async function updateFunnelOfBrand({ ctx, input }: Verb<FunnelIdParams & { body: UpdateFunnelBody }>): Promise<FunnelReply> {
  const { scope, brandId } = await brandOf(ctx, "admin");
  const { body } = input;
  const at = new Date(ctx.clock.now());
  const funnel = await withTransaction(ctx.db, async (tx) => {
    const current = await findFunnelOfBrand(tx, brandId, input.id, { lock: true });
    if (!current) throw funnelNotFound();
    if (body.status === "draft" && current.status !== "draft") throw backToDraft();
    const trigger = body.trigger !== undefined ? checkedTrigger(body.trigger) : current.trigger;
    const steps = body.steps !== undefined ? normalizedSteps(body.steps) : current.steps;
    const flowChanged = body.trigger !== undefined || body.steps !== undefined;
    let version = current.currentVersion;
    if (flowChanged && current.status === "draft") await replaceFunnelVersion(tx, current.id, version, { trigger, steps });
    else if (flowChanged) await insertFunnelVersion(tx, { funnelId: current.id, version: ++version, trigger, steps, createdBy: scope.userId, createdAt: at });
    const patch = {
      name: body.name ?? current.name,
      priority: body.priority ?? current.priority,
      status: body.status ?? current.status,
      minSamplePerVariant: body.minSamplePerVariant ?? current.minSamplePerVariant,
      commissionRate: body.commissionRate !== undefined ? body.commissionRate : current.commissionRate,
      currentVersion: version,
      updatedAt: at,
    };
    await updateFunnel(tx, current.id, patch);
    await recordAudit(tx, ctx, {
      action: "funnel.update",
      resourceType: "funnel",
      resourceId: current.id,
      success: true,
      brandId,
      details: { changed: Object.keys(body).sort(), version, status: patch.status },
    });
    return { ...current, ...patch, trigger, steps };
  });
  return { success: true, funnel: funnelView(funnel) };
}

/** `DELETE /api/admin/funnels/<id>` (admin, owner): kept for its sessions and stats, gone from every list and the hosted flow. */
export async function deleteFunnel({ ctx, input }: Verb<FunnelIdParams>): Promise<{ success: true }> {
  const { brandId } = await brandOf(ctx, "admin");
  const at = new Date(ctx.clock.now());
  await withTransaction(ctx.db, async (tx) => {
    const current = await findFunnelOfBrand(tx, brandId, input.id, { lock: true });
    if (!current) throw funnelNotFound();
    await updateFunnel(tx, current.id, { deletedAt: at, updatedAt: at });
    await recordAudit(tx, ctx, { action: "funnel.delete", resourceType: "funnel", resourceId: current.id, success: true, brandId, details: { name: current.name } });
  });
  return { success: true };
}

/** `POST /api/admin/funnels/<id>/promote` (admin, owner): the step keeps only that variant, in a new version. */
export async function promoteVariant({ ctx, input }: Verb<FunnelIdParams & { body: PromoteBody }>): Promise<FunnelReply> {
  const { scope, brandId } = await brandOf(ctx, "admin");
  const at = new Date(ctx.clock.now());
  const funnel = await withTransaction(ctx.db, async (tx) => {
    const current = await findFunnelOfBrand(tx, brandId, input.id, { lock: true });
    if (!current) throw funnelNotFound();
    const variant = current.steps[input.body.stepIndex]?.variants.find((v) => v.id === input.body.variantId);
    if (!variant) throw variantNotFound();
    const steps = current.steps.map((step, index) => (index === input.body.stepIndex ? { variants: [{ ...variant, weight: 1 }] } : step));
    const version = current.currentVersion + 1;
    await insertFunnelVersion(tx, { funnelId: current.id, version, trigger: current.trigger, steps, createdBy: scope.userId, createdAt: at });
    await updateFunnel(tx, current.id, { currentVersion: version, updatedAt: at });
    await recordAudit(tx, ctx, { action: "funnel.promote", resourceType: "funnel", resourceId: current.id, success: true, brandId, details: { ...input.body, version } });
    return { ...current, currentVersion: version, updatedAt: at, steps };
  });
  return { success: true, funnel: funnelView(funnel) };
}
