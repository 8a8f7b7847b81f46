// Helpers for the administration tests (not a test file itself).
import type { TestApp } from "./app.js";
import { call as identityCall, PASSWORD, registerUser, sessionOf, uniqueEmail } from "./identity.js";
import { SESSION_COOKIE } from "../../src/identity/policy.js";
import { ORIGIN } from "./identity.js";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** An administration request with the session cookie and a same-origin `Origin` (CSRF). */
export function adminCall(t: TestApp, method: Method, url: string, options: { body?: unknown; session?: string } = {}) {
  return t.app.inject({
    method,
    url,
    cookies: options.session ? { [SESSION_COOKIE]: options.session } : {},
    headers: { origin: ORIGIN, ...(options.body !== undefined ? { "content-type": "application/json" } : {}) },
    payload: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

/** Adds a user with `role` to the owner's organization through the API, then logs them in. */
export async function addUser(t: TestApp, ownerSession: string, role: "owner" | "admin" | "member", brandIds: string[] = []) {
  const email = uniqueEmail(role);
  const res = await adminCall(t, "POST", "/api/admin/users", { session: ownerSession, body: { email, password: PASSWORD, name: `A ${role}`, role, brandIds } });
  if (res.statusCode !== 200) throw new Error(`add user failed ${res.statusCode} ${res.body}`);
  const login = await identityCall(t, "POST", "/api/admin/auth", { body: { email, password: PASSWORD } });
  if (login.statusCode !== 200) throw new Error(`login failed ${login.statusCode} ${login.body}`);
  return { userId: res.json().id as string, email, session: sessionOf(login) };
}

/** A registered owner with the organization and brand ids of their session. */
export async function registerOwner(t: TestApp, orgName = "Shop") {
  const user = await registerUser(t, { orgName });
  const state = (await adminCall(t, "GET", "/api/admin/auth", { session: user.session })).json();
  return { ...user, organizationId: state.session.organizationId as string, brandId: state.session.brandId as string };
}
