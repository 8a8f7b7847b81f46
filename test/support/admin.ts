// Helpers for the administration tests (not a test file itself).
import { and, eq } from "drizzle-orm";
import type { TestApp } from "./app.js";
import { call, PASSWORD, registerUser, sessionOf, uniqueEmail } from "./identity.js";
import { memberships, type OrganizationRole } from "../../src/db/schema/index.js";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** An administration request with the session cookie and a same-origin `Origin` (CSRF). */
export const adminCall = (t: TestApp, method: Method, url: string, options: { body?: unknown; session?: string } = {}) => call(t, method, url, options);

export type Registered = Awaited<ReturnType<typeof registerUser>> & { organizationId: string; brandId: string };

/**
 * Registers a user (owner of a new organization, or of the default one for the very first user) and
 * reads the organization and brand of their session. `orgName` or registration overrides.
 */
export async function registerOwner(t: TestApp, overrides: string | Parameters<typeof registerUser>[1] = {}): Promise<Registered> {
  const user = await registerUser(t, typeof overrides === "string" ? { orgName: overrides } : overrides);
  const state = (await call(t, "GET", "/api/admin/auth", { session: user.session })).json();
  return { ...user, organizationId: state.session.organizationId as string, brandId: state.session.brandId as string };
}

/** Adds a user with `role` to the owner's organization through the API, then logs them in. */
export async function addUser(t: TestApp, ownerSession: string, role: OrganizationRole, brandIds: string[] = []) {
  const email = uniqueEmail(role);
  const res = await adminCall(t, "POST", "/api/admin/users", { session: ownerSession, body: { email, password: PASSWORD, name: `A ${role}`, role, brandIds } });
  if (res.statusCode !== 200) throw new Error(`add user failed ${res.statusCode} ${res.body}`);
  const login = await call(t, "POST", "/api/admin/auth", { body: { email, password: PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`login failed ${login.statusCode} ${login.body}`);
  return { userId: res.json().id as string, email, session: sessionOf(login) };
}

/** Changes a user's role in an organization (the session picks it up on its next request). */
export async function setRole(t: TestApp, user: { userId: string; organizationId: string }, role: OrganizationRole): Promise<void> {
  await t.deps.database.db
    .update(memberships)
    .set({ role })
    .where(and(eq(memberships.userId, user.userId), eq(memberships.organizationId, user.organizationId)));
}
