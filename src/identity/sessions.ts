import type { CookieSerializeOptions } from "@fastify/cookie";
import type { Config } from "../config/index.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import type { LoginMethod } from "../db/schema/index.js";
import { sha256 } from "../lib/crypto.js";
import { randomToken } from "../lib/ids.js";
import { noOrganization } from "./errors.js";
import { PENDING_LOGIN_MS, TOKEN_BYTES } from "./policy.js";
import { findMembership, findUserById, insertPendingLogin, insertSession, listAccessibleBrands, listMemberships } from "./store.js";

/** What a verb hands back to the route when a login completes: the route sets the cookie. */
export interface IssuedSession {
  kind: "session";
  /** The raw id for the cookie; only its sha256 is stored. */
  sessionId: string;
  userId: string;
  organizationId: string;
  brandId: string | null;
  role: string;
  email: string;
  name: string;
}

export interface IssuedPendingLogin {
  kind: "pending";
  pendingId: string;
  userId: string;
}

export type LoginOutcome = IssuedSession | IssuedPendingLogin;

/** Cookie attributes of the session cookie (CONTRACT §23; docs/identity.md). */
export function sessionCookieOptions(config: Config): CookieSerializeOptions {
  return {
    httpOnly: true,
    sameSite: "lax",
    secure: config.publicBaseUrl.startsWith("https:"),
    path: "/",
    // Absolute lifetime; the server also ends it after SESSION_IDLE_MINUTES without use.
    maxAge: config.session.maxHours * 3600,
  };
}

export function pendingCookieOptions(config: Config): CookieSerializeOptions {
  return { httpOnly: true, sameSite: "lax", secure: config.publicBaseUrl.startsWith("https:"), path: "/", maxAge: PENDING_LOGIN_MS / 1000 };
}

/** Organization and brand a fresh session starts on: the oldest membership, its first accessible brand. */
export async function initialTenant(db: Db, userId: string, preferredOrganizationId?: string): Promise<{ organizationId: string; brandId: string | null; role: string }> {
  const orgs = await listMemberships(db, userId);
  const org = orgs.find((o) => o.id === preferredOrganizationId) ?? orgs[0];
  if (!org) throw noOrganization();
  const brandList = await listAccessibleBrands(db, userId, org.id, org.role);
  return { organizationId: org.id, brandId: brandList[0]?.id ?? null, role: org.role };
}

/** A new session row with a new random id: called at every login and privilege change. */
export async function issueSession(
  tx: Db,
  ctx: Pick<Ctx, "clock" | "config" | "clientAddress" | "userAgent">,
  userId: string,
  tenant: { organizationId: string; brandId: string | null },
): Promise<IssuedSession> {
  const sessionId = randomToken(TOKEN_BYTES);
  const now = ctx.clock.now();
  await insertSession(tx, {
    idHash: sha256(sessionId),
    userId,
    organizationId: tenant.organizationId,
    brandId: tenant.brandId,
    createdAt: new Date(now),
    lastSeenAt: new Date(now),
    expiresAt: new Date(now + ctx.config.session.maxHours * 3_600_000),
    ipAddress: ctx.clientAddress ?? null,
    userAgent: ctx.userAgent?.slice(0, 512) ?? null,
  });
  const membership = await findMembership(tx, userId, tenant.organizationId);
  const user = await findUserById(tx, userId);
  return { kind: "session", sessionId, userId, ...tenant, role: membership?.role ?? "member", email: user?.email ?? "", name: user?.name ?? "" };
}

export async function issuePendingLogin(tx: Db, ctx: Pick<Ctx, "clock">, userId: string, method: LoginMethod): Promise<IssuedPendingLogin> {
  const pendingId = randomToken(TOKEN_BYTES);
  const now = ctx.clock.now();
  await insertPendingLogin(tx, { idHash: sha256(pendingId), userId, method, createdAt: new Date(now), expiresAt: new Date(now + PENDING_LOGIN_MS) });
  return { kind: "pending", pendingId, userId };
}
