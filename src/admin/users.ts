import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { assertRole, type CallerScope } from "../http/auth.js";
import { bindResource, keyAlreadyUsed, ofOrganization, oncePerKey, type EffectOf } from "../http/idempotent-effects.js";
import { withTransaction } from "../db/transaction.js";
import { brandAccess, brands, memberships, sessions, users, type BrandRole, type OrganizationRole } from "../db/schema/index.js";
import { missingRequiredFields } from "../identity/errors.js";
import { checkPasswordPolicy, hashPassword } from "../identity/password.js";
import { isEmail, normalizeEmail } from "../identity/register.js";
import { findUserByEmail } from "../identity/store.js";
import { newId } from "../lib/ids.js";
import { validationError } from "../lib/errors.js";
import { alreadyMember, brandNotFound, lastOwner, ownerRequired, userNotFound } from "./directory-errors.js";
import { isUniqueViolation } from "../db/errors.js";

// Users of the session's organization (SPEC "Administration: users"; docs/admin.md "Users").
// Every query is scoped by the caller's organization: a user of another organization is a 404.

export interface OrgUser {
  id: string;
  email: string;
  name: string;
  role: OrganizationRole;
  createdAt: number;
}

export interface BrandAccessView {
  brandId: string;
  role: BrandRole;
}

type Args<I = undefined> = { ctx: Ctx } & (I extends undefined ? { input?: undefined } : { input: I });

/** Org roles map to the brand role a user gets on the brands granted to them. */
const brandRoleOf = (role: OrganizationRole): BrandRole => (role === "member" ? "member" : "admin");

const userColumns = { id: users.id, email: users.email, name: users.name, role: memberships.role, createdAt: users.createdAt };
const toOrgUser = (row: { id: string; email: string; name: string; role: OrganizationRole; createdAt: Date }): OrgUser => ({ ...row, createdAt: row.createdAt.getTime() });

async function findOrgUser(db: Db, organizationId: string, userId: string, lock = false): Promise<OrgUser | undefined> {
  const query = db
    .select(userColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId)));
  const [row] = lock ? await query.for("update", { of: memberships }) : await query;
  return row ? toOrgUser(row) : undefined;
}

/** Brand access of a user limited to the live brands of one organization. */
async function brandAccessIn(db: Db, organizationId: string, userId: string): Promise<BrandAccessView[]> {
  return db
    .select({ brandId: brandAccess.brandId, role: brandAccess.role })
    .from(brandAccess)
    .innerJoin(brands, eq(brands.id, brandAccess.brandId))
    .where(and(eq(brandAccess.userId, userId), eq(brands.organizationId, organizationId), isNull(brands.deletedAt)))
    .orderBy(asc(brands.createdAt), asc(brands.id));
}

/**
 * Locks the organization's owner memberships (in one order, before any other membership row, so two
 * concurrent changes cannot deadlock) and counts them: the last-owner rule under concurrency.
 */
async function lockOwners(tx: Db, organizationId: string): Promise<number> {
  const rows = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, organizationId), eq(memberships.role, "owner")))
    .orderBy(asc(memberships.userId))
    .for("update");
  return rows.length;
}

export async function listUsers({ ctx }: Args): Promise<{ users: OrgUser[]; organizationId: string }> {
  const scope = assertRole(ctx, "admin");
  const rows = await ctx.db
    .select(userColumns)
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, scope.organizationId))
    .orderBy(asc(memberships.createdAt), asc(users.id));
  return { users: rows.map(toOrgUser), organizationId: scope.organizationId };
}

export async function getUser({ ctx, input }: Args<{ userId: string }>): Promise<{ user: Omit<OrgUser, "createdAt">; brandAccess: BrandAccessView[] }> {
  const scope = assertRole(ctx, "member");
  const user = await findOrgUser(ctx.db, scope.organizationId, input.userId);
  if (!user) throw userNotFound();
  return { user: { id: user.id, email: user.email, name: user.name, role: user.role }, brandAccess: await brandAccessIn(ctx.db, scope.organizationId, user.id) };
}

export interface CreateUserInput {
  email: string;
  password: string;
  name: string;
  role: OrganizationRole;
  brandIds: string[];
}

/**
 * Adds a user to the session's organization with access to `brandIds`. The creator grants no more
 * than they hold: only an owner creates an owner. An email already registered elsewhere gets the
 * membership and keeps its own password and name; one already in this organization is 400.
 */
export async function createUser({ ctx, input }: Args<CreateUserInput>): Promise<OrgUser & { brandAccess: BrandAccessView[]; existingUser: boolean }> {
  const scope = assertRole(ctx, "admin");
  // CONTRACT §40: an Idempotency-Key names one membership made in the organization; a repeat answers it, not "already a member".
  const effect = ofOrganization(scope.organizationId, "user");
  return oncePerKey(ctx, effect, { answer: (userId) => addedUser(ctx, scope, userId), make: () => addUser(ctx, scope, input, effect) });
}

/** A user a key added, as now; `existingUser` when the account is older than its membership here (it was registered before). */
async function addedUser(ctx: Ctx, scope: CallerScope, userId: string): Promise<OrgUser & { brandAccess: BrandAccessView[]; existingUser: boolean }> {
  const [row] = await ctx.db
    .select({ ...userColumns, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, scope.organizationId), eq(memberships.userId, userId)));
  if (!row) throw keyAlreadyUsed("user", userId, "that user was removed from the organization since");
  const { joinedAt, ...user } = row;
  return { ...toOrgUser(user), brandAccess: await brandAccessIn(ctx.db, scope.organizationId, userId), existingUser: user.createdAt < joinedAt };
}

async function addUser(ctx: Ctx, scope: CallerScope, input: CreateUserInput, effect: EffectOf): Promise<OrgUser & { brandAccess: BrandAccessView[]; existingUser: boolean }> {
  const email = normalizeEmail(input.email);
  const name = input.name.trim();
  if (!email || !name || !input.password) throw missingRequiredFields();
  if (!isEmail(email)) throw validationError("Invalid email address", "email");
  if (name.length > 200) throw validationError("Name too long", "name");
  checkPasswordPolicy(input.password);
  if (input.role === "owner" && scope.role !== "owner") throw ownerRequired();
  const brandIds = [...new Set(input.brandIds)];
  const passwordHash = await hashPassword(input.password);

  return withTransaction(ctx.db, async (tx) => {
    const live = brandIds.length
      ? await tx
          .select({ id: brands.id })
          .from(brands)
          .where(and(eq(brands.organizationId, scope.organizationId), inArray(brands.id, brandIds), isNull(brands.deletedAt)))
      : [];
    if (live.length !== brandIds.length) throw brandNotFound();

    const now = new Date(ctx.clock.now());
    let user = await findUserByEmail(tx, email);
    const existingUser = !!user;
    if (!user) {
      const id = newId("usr");
      try {
        await tx.transaction((sp) => sp.insert(users).values({ id, email, name, passwordHash, createdAt: now, updatedAt: now }));
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyMember();
        throw error;
      }
      user = (await findUserByEmail(tx, email))!;
    }
    const inserted = await tx
      .insert(memberships)
      .values({ userId: user.id, organizationId: scope.organizationId, role: input.role, createdAt: now })
      .onConflictDoNothing()
      .returning({ userId: memberships.userId });
    if (inserted.length === 0) throw alreadyMember();
    await bindResource(tx, ctx, effect, user.id);
    if (brandIds.length) {
      await tx
        .insert(brandAccess)
        .values(brandIds.map((brandId) => ({ userId: user.id, brandId, role: brandRoleOf(input.role), createdAt: now })))
        .onConflictDoUpdate({ target: [brandAccess.userId, brandAccess.brandId], set: { role: brandRoleOf(input.role) } });
    }
    await recordAudit(tx, ctx, {
      action: "user.create",
      resourceType: "user",
      resourceId: user.id,
      organizationId: scope.organizationId,
      success: true,
      details: { role: input.role, brandIds, existingUser },
    });
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      role: input.role,
      createdAt: user.createdAt.getTime(),
      brandAccess: await brandAccessIn(tx, scope.organizationId, user.id),
      existingUser,
    };
  });
}

/**
 * Changes a user's role in the session's organization. Only an owner grants or changes the owner
 * role; the last owner stays an owner. Brand access rows of this organization follow the new role.
 */
export async function updateUserRole({ ctx, input }: Args<{ userId: string; role: OrganizationRole }>): Promise<OrgUser> {
  const scope = assertRole(ctx, "admin");
  return withTransaction(ctx.db, async (tx) => {
    const owners = await lockOwners(tx, scope.organizationId);
    const user = await findOrgUser(tx, scope.organizationId, input.userId, true);
    if (!user) throw userNotFound();
    if ((input.role === "owner" || user.role === "owner") && scope.role !== "owner") throw ownerRequired();
    if (user.role === "owner" && input.role !== "owner" && owners <= 1) throw lastOwner();
    await tx
      .update(memberships)
      .set({ role: input.role })
      .where(and(eq(memberships.organizationId, scope.organizationId), eq(memberships.userId, user.id)));
    const orgBrands = tx.select({ id: brands.id }).from(brands).where(eq(brands.organizationId, scope.organizationId));
    await tx
      .update(brandAccess)
      .set({ role: brandRoleOf(input.role) })
      .where(and(eq(brandAccess.userId, user.id), inArray(brandAccess.brandId, orgBrands)));
    await recordAudit(tx, ctx, {
      action: "user.update_role",
      resourceType: "user",
      resourceId: user.id,
      organizationId: scope.organizationId,
      success: true,
      details: { from: user.role, to: input.role },
    });
    return { ...user, role: input.role };
  });
}

/**
 * Removes a user from the session's organization: membership, brand access to its brands, and at
 * once every session of that user pointing at it. The user's other organizations stay.
 */
export async function removeUser({ ctx, input }: Args<{ userId: string }>): Promise<OrgUser & { sessionsEnded: number }> {
  const scope = assertRole(ctx, "owner");
  return withTransaction(ctx.db, async (tx) => {
    const owners = await lockOwners(tx, scope.organizationId);
    const user = await findOrgUser(tx, scope.organizationId, input.userId, true);
    if (!user) throw userNotFound();
    if (user.role === "owner" && owners <= 1) throw lastOwner();
    const orgBrands = tx.select({ id: brands.id }).from(brands).where(eq(brands.organizationId, scope.organizationId));
    await tx.delete(brandAccess).where(and(eq(brandAccess.userId, user.id), inArray(brandAccess.brandId, orgBrands)));
    await tx.delete(memberships).where(and(eq(memberships.organizationId, scope.organizationId), eq(memberships.userId, user.id)));
    const ended = await tx
      .delete(sessions)
      .where(and(eq(sessions.userId, user.id), eq(sessions.organizationId, scope.organizationId)))
      .returning({ idHash: sessions.idHash });
    await recordAudit(tx, ctx, {
      action: "user.remove",
      resourceType: "user",
      resourceId: user.id,
      organizationId: scope.organizationId,
      success: true,
      details: { role: user.role, sessionsEnded: ended.length },
    });
    return { ...user, sessionsEnded: ended.length };
  });
}

