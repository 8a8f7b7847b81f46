import { and, asc, eq, isNotNull, isNull, like } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, type CallerScope } from "../http/auth.js";
import { bindResource, keyAlreadyUsed, oncePerKey, ofUser, type EffectOf } from "../http/idempotent-effects.js";
import { brandAccess, brands, DEFAULT_ORGANIZATION_ID, memberships, organizations, sessions } from "../db/schema/index.js";
import { newId } from "../lib/ids.js";
import { forbidden, validationError } from "../lib/errors.js";
import { currentOrganization, defaultTenant, organizationNotFound, slugTaken } from "./directory-errors.js";
import { isUniqueViolation } from "../db/errors.js";
import { checkExplicitSlug, firstFreeSlug, slugFromName } from "./slug.js";

// Organizations of the caller (SPEC "Administration: organizations and brands"; docs/admin.md).
// An organization is reached only through the caller's own membership: any other id is a 404.

export interface OrganizationView {
  id: string;
  name: string;
  slug: string;
  createdAt: number;
}

export interface DeletedFilter {
  includeDeleted?: boolean;
  deletedOnly?: boolean;
}

const toView = (row: { id: string; name: string; slug: string; createdAt: Date }): OrganizationView => ({ id: row.id, name: row.name, slug: row.slug, createdAt: row.createdAt.getTime() });

export async function listOrganizations({ ctx, input }: { ctx: Ctx; input: DeletedFilter }) {
  const scope = assertRole(ctx, "owner");
  const rows = await ctx.db
    .select({ id: organizations.id, name: organizations.name, slug: organizations.slug, createdAt: organizations.createdAt, deletedAt: organizations.deletedAt })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, scope.userId))
    .orderBy(asc(memberships.createdAt), asc(organizations.id));
  const visible = rows.filter((r) => (input.deletedOnly ? r.deletedAt : input.includeDeleted ? true : !r.deletedAt));
  return {
    organizations: visible.map(toView),
    currentOrganizationId: scope.organizationId,
    deletedCount: rows.filter((r) => r.deletedAt).length,
  };
}

/** Picks a free slug (or checks the explicit one) and inserts; a race on the unique index retries. */
export async function insertWithSlug(
  tx: Db,
  explicit: string | undefined,
  base: string,
  insert: (db: Db, slug: string) => Promise<unknown>,
  takenLike: (prefix: string) => Promise<string[]>,
): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const slug = explicit ?? firstFreeSlug(base, await takenLike(base));
    try {
      await tx.transaction((sp) => insert(sp as unknown as Db, slug));
      return slug;
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      if (explicit !== undefined || attempt >= 3) throw slugTaken();
    }
  }
}

/** Creates an organization with the caller as owner and a default brand the caller administers. */
export async function createOrganization({ ctx, input }: { ctx: Ctx; input: { name: string; slug?: string } }) {
  const scope = assertRole(ctx, "owner");
  // CONTRACT §40: an Idempotency-Key names one organization of the user; a repeat answers it.
  const effect = ofUser(scope.userId, "organization");
  return oncePerKey(ctx, effect, { answer: (id) => createdOrganization(ctx, scope, id), make: () => makeOrganization(ctx, scope, input, effect) });
}

/** An organization a key made, as its creation answered it; deleted since (or left): 409 naming it. */
async function createdOrganization(ctx: Ctx, scope: CallerScope, id: string) {
  const [row] = await ctx.db
    .select({ id: organizations.id, name: organizations.name, slug: organizations.slug, createdAt: organizations.createdAt, defaultBrandId: brands.id })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .innerJoin(brands, and(eq(brands.organizationId, organizations.id), eq(brands.slug, "default")))
    .where(and(eq(memberships.userId, scope.userId), eq(organizations.id, id), isNull(organizations.deletedAt)));
  if (!row) throw keyAlreadyUsed("organization", id, "it was deleted since, or you left it");
  return { ...row, createdAt: row.createdAt.getTime() };
}

async function makeOrganization(ctx: Ctx, scope: CallerScope, input: { name: string; slug?: string }, effect: EffectOf) {
  const name = input.name.trim();
  if (!name) throw validationError("Missing required fields", "name");
  if (name.length > 200) throw validationError("Name too long", "name");
  const explicit = input.slug === undefined ? undefined : checkExplicitSlug(input.slug);
  return withTransaction(ctx.db, async (tx) => {
    const now = new Date(ctx.clock.now());
    const id = newId("org");
    const brandId = newId("brand");
    const slug = await insertWithSlug(
      tx,
      explicit,
      slugFromName(name, "org"),
      (db, slug) => db.insert(organizations).values({ id, name, slug, createdAt: now }),
      async (prefix) => (await tx.select({ slug: organizations.slug }).from(organizations).where(like(organizations.slug, `${prefix}%`))).map((r) => r.slug),
    );
    await bindResource(tx, ctx, effect, id);
    await tx.insert(brands).values({ id: brandId, organizationId: id, name, slug: "default", createdAt: now });
    await tx.insert(memberships).values({ userId: scope.userId, organizationId: id, role: "owner", createdAt: now });
    await tx.insert(brandAccess).values({ userId: scope.userId, brandId, role: "admin", createdAt: now });
    await recordAudit(tx, ctx, { action: "organization.create", resourceType: "organization", resourceId: id, organizationId: id, brandId, success: true, details: { slug } });
    return { id, name, slug, createdAt: now.getTime(), defaultBrandId: brandId };
  });
}

/** The caller's organization (locked), live or deleted as asked; 404 without a membership, 403 unless owner. */
async function ownedOrganization(tx: Db, scope: CallerScope, organizationId: string, deleted: boolean) {
  const [row] = await tx
    .select({ id: organizations.id, name: organizations.name, slug: organizations.slug, createdAt: organizations.createdAt, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(and(eq(memberships.userId, scope.userId), eq(memberships.organizationId, organizationId), deleted ? isNotNull(organizations.deletedAt) : isNull(organizations.deletedAt)))
    .for("update", { of: organizations });
  if (!row) throw organizationNotFound();
  if (row.role !== "owner") throw forbidden("Only an owner of this organization can do this");
  return row;
}

/**
 * Soft-deletes an organization the caller owns. The session's own organization and the platform
 * default are refused (409); every session pointing at the deleted organization ends.
 */
export async function deleteOrganization({ ctx, input }: { ctx: Ctx; input: { organizationId: string } }) {
  // Any member may ask: ownership of the organization named is what counts (ownedOrganization).
  const scope = assertRole(ctx, "member");
  return withTransaction(ctx.db, async (tx) => {
    const org = await ownedOrganization(tx, scope, input.organizationId, false);
    if (org.id === scope.organizationId) throw currentOrganization();
    if (org.id === DEFAULT_ORGANIZATION_ID) throw defaultTenant("organization");
    await tx.update(organizations).set({ deletedAt: new Date(ctx.clock.now()) }).where(eq(organizations.id, org.id));
    const ended = await tx.delete(sessions).where(eq(sessions.organizationId, org.id)).returning({ idHash: sessions.idHash });
    await recordAudit(tx, ctx, { action: "organization.delete", resourceType: "organization", resourceId: org.id, success: true, details: { sessionsEnded: ended.length } });
    return toView(org);
  });
}

export async function restoreOrganization({ ctx, input }: { ctx: Ctx; input: { organizationId: string } }) {
  const scope = assertRole(ctx, "member");
  return withTransaction(ctx.db, async (tx) => {
    const org = await ownedOrganization(tx, scope, input.organizationId, true);
    await tx.update(organizations).set({ deletedAt: null }).where(eq(organizations.id, org.id));
    await recordAudit(tx, ctx, { action: "organization.restore", resourceType: "organization", resourceId: org.id, success: true });
    return toView(org);
  });
}
