import { and, asc, eq, inArray, isNotNull, isNull, like } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, type CallerScope } from "../http/auth.js";
import { bindResource, keyAlreadyUsed, ofOrganization, oncePerKey, type EffectOf } from "../http/idempotent-effects.js";
import { brandAccess, brands, DEFAULT_BRAND_ID, sessions } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";
import { forbidden, validationError } from "../lib/errors.js";
import { brandNotFound, defaultTenant, lastBrand } from "./directory-errors.js";
import { insertWithSlug, type DeletedFilter } from "./organizations.js";
import { checkExplicitSlug, slugFromName } from "./slug.js";

// Brands of the session's organization (SPEC "Administration: organizations and brands";
// docs/admin.md "Brands"). Every query carries the caller's organization: another organization's brand is a 404.

export interface BrandView {
  id: string;
  name: string;
  slug: string;
  organizationId: string;
}

const brandColumns = { id: brands.id, name: brands.name, slug: brands.slug, organizationId: brands.organizationId, deletedAt: brands.deletedAt };
const toView = ({ id, name, slug, organizationId }: BrandView): BrandView => ({ id, name, slug, organizationId });

/** Owners and admins see every brand of the organization, members the brands granted to them. */
export async function listBrands({ ctx, input }: { ctx: Ctx; input: DeletedFilter }) {
  const scope = assertRole(ctx, "member");
  if ((input.deletedOnly || input.includeDeleted) && scope.role !== "owner") throw forbidden("Only owners can list deleted brands");
  const inOrg = eq(brands.organizationId, scope.organizationId);
  const granted = scope.role === "member" ? inArray(brands.id, ctx.db.select({ id: brandAccess.brandId }).from(brandAccess).where(eq(brandAccess.userId, scope.userId))) : undefined;
  const rows = await ctx.db
    .select(brandColumns)
    .from(brands)
    .where(and(inOrg, granted))
    .orderBy(asc(brands.createdAt), asc(brands.id));
  const visible = rows.filter((r) => (input.deletedOnly ? r.deletedAt : input.includeDeleted ? true : !r.deletedAt));
  return {
    brands: visible.map(toView),
    currentBrandId: scope.brandId,
    organizationId: scope.organizationId,
    deletedCount: rows.filter((r) => r.deletedAt).length,
  };
}

export async function createBrand({ ctx, input }: { ctx: Ctx; input: { name: string; slug?: string } }): Promise<BrandView> {
  const scope = assertRole(ctx, "admin");
  // CONTRACT §40: an Idempotency-Key names one brand of the organization; a repeat answers it.
  const effect = ofOrganization(scope.organizationId, "brand");
  return oncePerKey(ctx, effect, {
    answer: async (id) => {
      const [row] = await ctx.db
        .select(brandColumns)
        .from(brands)
        .where(and(eq(brands.id, id), eq(brands.organizationId, scope.organizationId), isNull(brands.deletedAt)));
      if (!row) throw keyAlreadyUsed("brand", id, "it was deleted since");
      return toView(row);
    },
    make: () => makeBrand(ctx, scope, input, effect),
  });
}

async function makeBrand(ctx: Ctx, scope: CallerScope, input: { name: string; slug?: string }, effect: EffectOf): Promise<BrandView> {
  const name = input.name.trim();
  if (!name) throw validationError("Missing required fields", "name");
  if (name.length > 200) throw validationError("Name too long", "name");
  const explicit = input.slug === undefined ? undefined : checkExplicitSlug(input.slug);
  return withTransaction(ctx.db, async (tx) => {
    const id = newId("brand");
    const now = new Date(ctx.clock.now());
    const slug = await insertWithSlug(
      tx,
      explicit,
      slugFromName(name, "brand"),
      (db, slug) => db.insert(brands).values({ id, organizationId: scope.organizationId, name, slug, createdAt: now }),
      async (prefix) =>
        (await tx.select({ slug: brands.slug }).from(brands).where(and(eq(brands.organizationId, scope.organizationId), like(brands.slug, `${prefix}%`)))).map((r) => r.slug),
    );
    await bindResource(tx, ctx, effect, id);
    await recordAudit(tx, ctx, { action: "brand.create", resourceType: "brand", resourceId: id, organizationId: scope.organizationId, brandId: id, success: true, details: { slug } });
    return { id, name, slug, organizationId: scope.organizationId };
  });
}

/** Renames a live brand of the session's organization (its slug stays: links and domains use it). */
export async function renameBrand({ ctx, input }: { ctx: Ctx; input: { brandId: string; name: string } }): Promise<BrandView> {
  const scope = assertRole(ctx, "admin");
  const name = input.name.trim();
  if (!name) throw validationError("Missing required fields", "name");
  if (name.length > 200) throw validationError("Name too long", "name");
  return withTransaction(ctx.db, async (tx) => {
    const brand = await scopedBrand(tx, scope, input.brandId, false);
    await tx.update(brands).set({ name }).where(eq(brands.id, brand.id));
    await recordAudit(tx, ctx, {
      action: "brand.update",
      resourceType: "brand",
      resourceId: brand.id,
      organizationId: scope.organizationId,
      brandId: brand.id,
      success: true,
      details: { from: brand.name, to: name },
    });
    return toView({ ...brand, name });
  });
}

async function scopedBrand(tx: Db, scope: CallerScope, brandId: string, deleted: boolean) {
  const [row] = await tx
    .select(brandColumns)
    .from(brands)
    .where(and(eq(brands.id, brandId), eq(brands.organizationId, scope.organizationId), deleted ? isNotNull(brands.deletedAt) : isNull(brands.deletedAt)))
    .for("update");
  if (!row) throw brandNotFound();
  return row;
}

/**
 * Soft-deletes a brand of the session's organization. The platform default brand (brandless tokens
 * belong to it) and an organization's last live brand are refused (409). Sessions on the brand
 * lose their brand selection; they keep the organization.
 */
export async function deleteBrand({ ctx, input }: { ctx: Ctx; input: { brandId: string } }): Promise<BrandView> {
  const scope = assertRole(ctx, "admin");
  return withTransaction(ctx.db, async (tx) => {
    // Locks the organization's live brands first, in one order: two concurrent deletes cannot remove
    // the last two, and cannot deadlock on each other's rows.
    const live = await tx
      .select({ id: brands.id })
      .from(brands)
      .where(and(eq(brands.organizationId, scope.organizationId), isNull(brands.deletedAt)))
      .orderBy(asc(brands.id))
      .for("update");
    const brand = await scopedBrand(tx, scope, input.brandId, false);
    if (brand.id === DEFAULT_BRAND_ID) throw defaultTenant("brand");
    if (!live.some((b) => b.id !== brand.id)) throw lastBrand();
    await tx.update(brands).set({ deletedAt: new Date(ctx.clock.now()) }).where(eq(brands.id, brand.id));
    await tx.update(sessions).set({ brandId: null }).where(eq(sessions.brandId, brand.id));
    await recordAudit(tx, ctx, { action: "brand.delete", resourceType: "brand", resourceId: brand.id, organizationId: scope.organizationId, brandId: brand.id, success: true });
    return toView(brand);
  });
}

export async function restoreBrand({ ctx, input }: { ctx: Ctx; input: { brandId: string } }): Promise<BrandView> {
  const scope = assertRole(ctx, "admin");
  return withTransaction(ctx.db, async (tx) => {
    const brand = await scopedBrand(tx, scope, input.brandId, true);
    await tx.update(brands).set({ deletedAt: null }).where(eq(brands.id, brand.id));
    await recordAudit(tx, ctx, { action: "brand.restore", resourceType: "brand", resourceId: brand.id, organizationId: scope.organizationId, brandId: brand.id, success: true });
    return toView(brand);
  });
}
