import { and, asc, count, desc, eq, gt, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "../db/client.js";
import {
  brandAccess,
  brands,
  loginAttempts,
  loginLocks,
  magicLinks,
  memberships,
  organizations,
  pendingLogins,
  sessions,
  socialAccounts,
  users,
  type LoginFactor,
  type LoginMethod,
  type OrganizationRole,
} from "../db/schema/index.js";

// Identity queries. Each takes a db handle: the client or an open transaction.

export type UserRow = typeof users.$inferSelect;

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  return row;
}

export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row;
}

export interface TenantRef {
  id: string;
  name: string;
  slug: string;
}

/** The user's live organizations with their role, oldest membership first. */
export async function listMemberships(db: Db, userId: string): Promise<(TenantRef & { role: OrganizationRole })[]> {
  return db
    .select({ id: organizations.id, name: organizations.name, slug: organizations.slug, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(and(eq(memberships.userId, userId), isNull(organizations.deletedAt)))
    .orderBy(asc(memberships.createdAt), asc(organizations.id));
}

export async function findMembership(db: Db, userId: string, organizationId: string): Promise<{ role: OrganizationRole } | undefined> {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(and(eq(memberships.userId, userId), eq(memberships.organizationId, organizationId), isNull(organizations.deletedAt)));
  return row;
}

/**
 * Brands of an organization the user may act on: every live brand for owners and admins of the
 * organization, the brands granted in brand_access for members.
 */
export async function listAccessibleBrands(db: Db, userId: string, organizationId: string, role: OrganizationRole): Promise<TenantRef[]> {
  const live = and(eq(brands.organizationId, organizationId), isNull(brands.deletedAt));
  if (role === "owner" || role === "admin") {
    return db.select({ id: brands.id, name: brands.name, slug: brands.slug }).from(brands).where(live).orderBy(asc(brands.createdAt), asc(brands.id));
  }
  return db
    .select({ id: brands.id, name: brands.name, slug: brands.slug })
    .from(brandAccess)
    .innerJoin(brands, eq(brands.id, brandAccess.brandId))
    .where(and(eq(brandAccess.userId, userId), live))
    .orderBy(asc(brands.createdAt), asc(brands.id));
}

export interface SessionView {
  idHash: string;
  userId: string;
  organizationId: string | null;
  brandId: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  email: string;
  name: string;
  role: OrganizationRole | null;
}

export async function findSession(db: Db, idHash: string): Promise<SessionView | undefined> {
  const [row] = await db
    .select({
      idHash: sessions.idHash,
      userId: sessions.userId,
      organizationId: sessions.organizationId,
      brandId: sessions.brandId,
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      email: users.email,
      name: users.name,
      role: memberships.role,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .leftJoin(memberships, and(eq(memberships.userId, sessions.userId), eq(memberships.organizationId, sessions.organizationId)))
    .where(eq(sessions.idHash, idHash));
  return row;
}

export async function insertSession(db: Db, row: typeof sessions.$inferInsert): Promise<void> {
  await db.insert(sessions).values(row);
}

export async function deleteSession(db: Db, idHash: string): Promise<boolean> {
  const deleted = await db.delete(sessions).where(eq(sessions.idHash, idHash)).returning({ idHash: sessions.idHash });
  return deleted.length === 1;
}

export async function touchSession(db: Db, idHash: string, at: Date): Promise<void> {
  await db.update(sessions).set({ lastSeenAt: at }).where(eq(sessions.idHash, idHash));
}

export async function insertPendingLogin(db: Db, row: { idHash: string; userId: string; method: LoginMethod; createdAt: Date; expiresAt: Date }): Promise<void> {
  // One pending login per user at a time: a new first factor replaces the old one.
  await db.delete(pendingLogins).where(eq(pendingLogins.userId, row.userId));
  await db.insert(pendingLogins).values(row);
}

export async function findPendingLogin(db: Db, idHash: string) {
  const [row] = await db.select().from(pendingLogins).where(eq(pendingLogins.idHash, idHash));
  return row;
}

/** Counts one wrong code; returns the new count, or undefined when the pending login is gone. */
export async function countPendingFailure(db: Db, idHash: string): Promise<number | undefined> {
  const [row] = await db
    .update(pendingLogins)
    .set({ failedAttempts: sql`${pendingLogins.failedAttempts} + 1` })
    .where(eq(pendingLogins.idHash, idHash))
    .returning({ failedAttempts: pendingLogins.failedAttempts });
  return row?.failedAttempts;
}

/** Ends a pending login; true for the one caller that ended it. */
export async function deletePendingLogin(db: Db, idHash: string): Promise<boolean> {
  const deleted = await db.delete(pendingLogins).where(eq(pendingLogins.idHash, idHash)).returning({ idHash: pendingLogins.idHash });
  return deleted.length === 1;
}

/** Records the accepted TOTP step if it is newer than the last one: each code works once, one winner. */
export async function claimTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const updated = await db
    .update(users)
    .set({ totpLastStep: step })
    .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
    .returning({ id: users.id });
  return updated.length === 1;
}

export async function recordLoginAttempt(db: Db, row: { id: string; email: string; ipAddress: string | null; success: boolean; createdAt: Date; factor?: LoginFactor }): Promise<void> {
  await db.insert(loginAttempts).values(row);
}

/** Password failures for the email since `since`, not counting those before its last success. */
export async function countRecentFailuresForEmail(db: Db, email: string, since: Date): Promise<number> {
  const [lastSuccess] = await db
    .select({ createdAt: loginAttempts.createdAt })
    .from(loginAttempts)
    .where(and(eq(loginAttempts.email, email), eq(loginAttempts.factor, "password"), eq(loginAttempts.success, true), gt(loginAttempts.createdAt, since)))
    .orderBy(desc(loginAttempts.createdAt))
    .limit(1);
  const from = lastSuccess ? lastSuccess.createdAt : since;
  const [row] = await db
    .select({ n: count() })
    .from(loginAttempts)
    .where(and(eq(loginAttempts.email, email), eq(loginAttempts.factor, "password"), eq(loginAttempts.success, false), gt(loginAttempts.createdAt, from)));
  return row.n;
}

export async function countRecentFailuresForAddress(db: Db, ipAddress: string, since: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(loginAttempts)
    .where(and(eq(loginAttempts.ipAddress, ipAddress), eq(loginAttempts.factor, "password"), eq(loginAttempts.success, false), gt(loginAttempts.createdAt, since)));
  return row.n;
}

/** Wrong TOTP codes of a user (by email) since `since`, including checks still running (their rows start as failures). */
export async function countCodeFailures(db: Db, email: string, since: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(loginAttempts)
    .where(and(eq(loginAttempts.email, email), eq(loginAttempts.factor, "two_factor"), eq(loginAttempts.success, false), gt(loginAttempts.createdAt, since)));
  return row.n;
}

/** Marks a code check right (it no longer counts as a failure). */
export async function markAttemptSucceeded(db: Db, id: string): Promise<void> {
  await db.update(loginAttempts).set({ success: true }).where(eq(loginAttempts.id, id));
}

/**
 * Holds the user's row until the transaction ends (one user's code checks are reserved one at a
 * time) and answers until when the user's TOTP codes are locked (null: they are not).
 */
export async function lockUserForCodeCheck(tx: Db, userId: string): Promise<{ totpLockedUntil: Date | null } | undefined> {
  const [row] = await tx.select({ totpLockedUntil: users.totpLockedUntil }).from(users).where(eq(users.id, userId)).for("update");
  return row;
}

/**
 * Locks the user's TOTP codes until `until` unless a lock is already running; true only for the
 * caller that set it (one of several concurrent ones), so what follows a new lock (its mail) happens once.
 */
export async function startCodeLock(db: Db, userId: string, until: Date, now: Date): Promise<boolean> {
  const started = await db
    .update(users)
    .set({ totpLockedUntil: until })
    .where(and(eq(users.id, userId), or(isNull(users.totpLockedUntil), lte(users.totpLockedUntil, now))))
    .returning({ id: users.id });
  return started.length === 1;
}

export async function findLock(db: Db, email: string): Promise<Date | undefined> {
  const [row] = await db.select({ lockedUntil: loginLocks.lockedUntil }).from(loginLocks).where(eq(loginLocks.email, email));
  return row?.lockedUntil;
}

export async function upsertLock(db: Db, email: string, lockedUntil: Date, now: Date): Promise<void> {
  await db
    .insert(loginLocks)
    .values({ email, lockedUntil, createdAt: now })
    .onConflictDoUpdate({ target: loginLocks.email, set: { lockedUntil, createdAt: now } });
}

export async function countMagicLinksSince(db: Db, userId: string, since: Date): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(magicLinks)
    .where(and(eq(magicLinks.userId, userId), gt(magicLinks.createdAt, since)));
  return row.n;
}

/** A newer link voids the older ones (CONTRACT §23). */
export async function voidOpenMagicLinks(db: Db, userId: string, at: Date): Promise<void> {
  await db
    .update(magicLinks)
    .set({ voidedAt: at })
    .where(and(eq(magicLinks.userId, userId), isNull(magicLinks.usedAt), isNull(magicLinks.voidedAt)));
}

export async function insertMagicLink(db: Db, row: typeof magicLinks.$inferInsert): Promise<void> {
  await db.insert(magicLinks).values(row);
}

/** Consumes a live link atomically: of two concurrent verifications exactly one gets the row. */
export async function consumeMagicLink(db: Db, tokenHash: string, now: Date): Promise<{ userId: string } | undefined> {
  const [row] = await db
    .update(magicLinks)
    .set({ usedAt: now })
    .where(and(eq(magicLinks.tokenHash, tokenHash), isNull(magicLinks.usedAt), isNull(magicLinks.voidedAt), gt(magicLinks.expiresAt, now)))
    .returning({ userId: magicLinks.userId });
  return row;
}

export async function findMagicLink(db: Db, tokenHash: string) {
  const [row] = await db.select().from(magicLinks).where(eq(magicLinks.tokenHash, tokenHash));
  return row;
}

export async function findSocialAccount(db: Db, provider: "social_a" | "social_b", subject: string) {
  const [row] = await db.select().from(socialAccounts).where(and(eq(socialAccounts.provider, provider), eq(socialAccounts.subject, subject)));
  return row;
}

export async function insertSocialAccount(db: Db, row: typeof socialAccounts.$inferInsert): Promise<void> {
  await db.insert(socialAccounts).values(row).onConflictDoNothing();
}

