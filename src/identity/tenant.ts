import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { forbidden } from "../lib/errors.js";
import { initialTenant, issueSession, type IssuedSession } from "./sessions.js";
import { deleteSession, findMembership, listAccessibleBrands, listMemberships, type SessionView, type TenantRef } from "./store.js";

export interface AuthState {
  authenticated: true;
  session: { userId: string; organizationId: string | null; brandId: string | null; email: string; name: string; role: string | null };
  organizations: TenantRef[];
  brands: TenantRef[];
}

/** `GET /api/admin/auth`: the session, the user's organizations and the brands of the current one. */
export async function describeSession({ ctx, session }: { ctx: Ctx; session: SessionView }): Promise<AuthState> {
  const orgs = await listMemberships(ctx.db, session.userId);
  const current = orgs.find((o) => o.id === session.organizationId);
  const brandList = current ? await listAccessibleBrands(ctx.db, session.userId, current.id, current.role) : [];
  return {
    authenticated: true,
    session: { userId: session.userId, organizationId: session.organizationId, brandId: session.brandId, email: session.email, name: session.name, role: current?.role ?? null },
    organizations: orgs.map(({ id, name, slug }) => ({ id, name, slug })),
    brands: brandList,
  };
}

/**
 * A tenant switch is a privilege change: the old session row is deleted and a new id issued.
 * Only organizations the user is a member of (403 otherwise, audited).
 */
export async function switchOrganization({ ctx, session, organizationId }: { ctx: Ctx; session: SessionView; organizationId: string }): Promise<IssuedSession> {
  const membership = await findMembership(ctx.db, session.userId, organizationId);
  if (!membership) {
    await withTransaction(ctx.db, (tx) => recordAudit(tx, ctx, { action: "organization.switch", resourceType: "organization", resourceId: organizationId, success: false }));
    throw forbidden("You are not a member of this organization");
  }
  return withTransaction(ctx.db, async (tx) => {
    const tenant = await initialTenant(tx, session.userId, organizationId);
    await deleteSession(tx, session.idHash);
    const issued = await issueSession(tx, ctx, session.userId, tenant);
    await recordAudit(tx, ctx, { action: "organization.switch", resourceType: "organization", resourceId: organizationId, organizationId, brandId: tenant.brandId, success: true, details: { from: session.organizationId } });
    return issued;
  });
}

/** Only brands of the current organization the user may act on (403 otherwise, audited). */
export async function switchBrand({ ctx, session, brandId }: { ctx: Ctx; session: SessionView; brandId: string }): Promise<IssuedSession> {
  const membership = session.organizationId ? await findMembership(ctx.db, session.userId, session.organizationId) : undefined;
  const allowed = membership ? await listAccessibleBrands(ctx.db, session.userId, session.organizationId!, membership.role) : [];
  if (!allowed.some((b) => b.id === brandId)) {
    await withTransaction(ctx.db, (tx) => recordAudit(tx, ctx, { action: "brand.switch", resourceType: "brand", resourceId: brandId, success: false }));
    throw forbidden("You have no access to this brand");
  }
  return withTransaction(ctx.db, async (tx) => {
    await deleteSession(tx, session.idHash);
    const issued = await issueSession(tx, ctx, session.userId, { organizationId: session.organizationId!, brandId });
    await recordAudit(tx, ctx, { action: "brand.switch", resourceType: "brand", resourceId: brandId, brandId, success: true, details: { from: session.brandId } });
    return issued;
  });
}

export async function logout({ ctx, session }: { ctx: Ctx; session: SessionView }): Promise<void> {
  await withTransaction(ctx.db, async (tx) => {
    await deleteSession(tx, session.idHash);
    await recordAudit(tx, ctx, { action: "user.logout", resourceType: "user", resourceId: session.userId, success: true });
  });
}
