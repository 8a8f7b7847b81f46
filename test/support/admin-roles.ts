// Tenant fixtures for the administration tests (not a test file itself).
import { and, eq } from "drizzle-orm";
import type { TestApp } from "./app.js";
import { memberships, type OrganizationRole } from "../../src/db/schema/index.js";
import { call, registerUser } from "./identity.js";

export type Registered = Awaited<ReturnType<typeof registerUser>> & { organizationId: string; brandId: string };

/** Registers a user (owner of a new organization, or of the default one for the first user) and reads its tenant. */
export async function registerOwner(t: TestApp, overrides: Parameters<typeof registerUser>[1] = {}): Promise<Registered> {
  const user = await registerUser(t, overrides);
  const state = (await call(t, "GET", "/api/admin/auth", { session: user.session })).json();
  return { ...user, organizationId: state.session.organizationId, brandId: state.session.brandId };
}

/** Changes a user's role in an organization (the session picks it up on its next request). */
export async function setRole(t: TestApp, user: { userId: string; organizationId: string }, role: OrganizationRole): Promise<void> {
  await t.deps.database.db
    .update(memberships)
    .set({ role })
    .where(and(eq(memberships.userId, user.userId), eq(memberships.organizationId, user.organizationId)));
}
