// Helpers for the identity tests (not a test file itself).
import type { LightMyRequestResponse } from "fastify";
import { eq } from "drizzle-orm";
import type { TestApp } from "./app.js";
import { auditLogs, users } from "../../src/db/schema/index.js";
import { PENDING_LOGIN_COOKIE, SESSION_COOKIE } from "../../src/identity/policy.js";
import { totpCode } from "../../src/identity/totp.js";

/** PUBLIC_BASE_URL of buildTestApp: the same-origin `Origin`. */
export const ORIGIN = "http://checkout.test";
export const PASSWORD = "correct horse battery";

let counter = 0;
export const uniqueEmail = (prefix = "user") => `${prefix}-${Date.now().toString(36)}-${++counter}@example.com`;

export interface SetCookie {
  name: string;
  value: string;
  httpOnly?: boolean;
  sameSite?: string;
  secure?: boolean;
  path?: string;
  maxAge?: number;
  expires?: Date;
}

export function cookieOf(res: LightMyRequestResponse, name: string): SetCookie | undefined {
  return (res.cookies as SetCookie[]).filter((c) => c.name === name).at(-1);
}

export function sessionOf(res: LightMyRequestResponse): string {
  const c = cookieOf(res, SESSION_COOKIE);
  if (!c?.value) throw new Error(`no session cookie in response ${res.statusCode} ${res.body}`);
  return c.value;
}

export function pendingOf(res: LightMyRequestResponse): string {
  const c = cookieOf(res, PENDING_LOGIN_COOKIE);
  if (!c?.value) throw new Error(`no pending cookie in response ${res.statusCode} ${res.body}`);
  return c.value;
}

export function call(t: TestApp, method: "GET" | "POST" | "PUT" | "DELETE" | "HEAD", url: string, options: { body?: unknown; session?: string; pending?: string; headers?: Record<string, string> } = {}) {
  const cookies: Record<string, string> = {};
  if (options.session) cookies[SESSION_COOKIE] = options.session;
  if (options.pending) cookies[PENDING_LOGIN_COOKIE] = options.pending;
  return t.app.inject({
    method,
    url,
    cookies,
    headers: { origin: ORIGIN, ...(options.body !== undefined ? { "content-type": "application/json" } : {}), ...options.headers },
    payload: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

export async function registerUser(t: TestApp, overrides: Partial<{ name: string; email: string; password: string; orgName: string }> = {}) {
  const body = { name: "Ada Merchant", email: uniqueEmail(), password: PASSWORD, orgName: "Ada Shop", ...overrides };
  const res = await call(t, "POST", "/api/auth/register", { body });
  if (res.statusCode !== 200) throw new Error(`register failed ${res.statusCode} ${res.body}`);
  const [user] = await t.deps.database.db.select().from(users).where(eq(users.email, body.email.toLowerCase()));
  return { ...body, session: sessionOf(res), userId: user.id };
}

/**
 * A registered user who turned 2FA on: setup, then confirm with the current code. The clock then
 * moves on a step, since the confirm code's step counts as used. Confirm's session and recovery codes.
 */
export async function registerWithTwoFactor(t: TestApp) {
  const user = await registerUser(t);
  const secret = (await call(t, "GET", "/api/auth/2fa/setup", { session: user.session })).json().secret as string;
  const confirm = await call(t, "POST", "/api/auth/2fa/confirm", { session: user.session, body: { secret, token: totpCode(secret, t.clock.now()) } });
  if (confirm.statusCode !== 200) throw new Error(`2FA confirm failed ${confirm.statusCode} ${confirm.body}`);
  t.clock.advance(30_000);
  return { ...user, secret, session: sessionOf(confirm), recoveryCodes: confirm.json().recoveryCodes as string[] };
}

export async function auditActions(t: TestApp, userId?: string) {
  const rows = await t.deps.database.db.select().from(auditLogs).orderBy(auditLogs.createdAt);
  return rows.filter((r) => !userId || r.actorId === userId || r.resourceId === userId);
}
