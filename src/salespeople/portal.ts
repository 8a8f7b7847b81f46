import type { CookieSerializeOptions } from "@fastify/cookie";
import { recordAudit } from "../audit/record.js";
import type { Config } from "../config/index.js";
import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { isSessionOver } from "../identity/session-caller.js";
import { invalidCredentials } from "../identity/errors.js";
import { verifyPassword } from "../identity/password.js";
import { normalizeEmail } from "../identity/register.js";
import { organizationLivemode, shownLivemode } from "../payments/mode.js";
import { AppError } from "../lib/errors.js";
import { sha256 } from "../lib/crypto.js";
import { newId, randomToken } from "../lib/ids.js";
import { clawbackLineOf } from "../commissions/list.js";
import type { PortalStateReply, SalespersonSummary } from "./schemas.js";
import {
  countRecentPortalFailures,
  deletePortalSession,
  findPortalSession,
  findSalespeopleByEmail,
  insertPortalSession,
  portalClawbackLines,
  portalClawbacksByCurrency,
  portalSaleLines,
  portalTotalsByCurrency,
  recordPortalAttempt,
  touchPortalSession,
  type SalespersonRow,
} from "./store.js";

/** Its own cookie, never the administration one: it grants nothing under /api/admin. */
export const SALESPERSON_COOKIE = "salesperson_session";
/** The portal's own brute-force limit (docs/admin.md): failures per account within the window. */
export const PORTAL_FAILURES = 10;
export const PORTAL_WINDOW_MS = 15 * 60_000;
/** An email is unique per organization: at most this many accounts are tried for one email. */
const MAX_ACCOUNTS_PER_EMAIL = 5;
const LAST_SEEN_GRANULARITY_MS = 60_000;
const PORTAL_CLAWBACK_LINES = 100;
const PORTAL_SALE_LINES = 100;

export const portalUnauthorized = () => new AppError("UNAUTHORIZED", "Unauthorized", undefined, { authenticated: false });
export const portalLocked = () => new AppError("TOO_MANY_LOGIN_ATTEMPTS", "Too many failed login attempts; try again later", undefined, { retryAfter: PORTAL_WINDOW_MS / 1000 });

export function portalCookieOptions(config: Config): CookieSerializeOptions {
  return { httpOnly: true, sameSite: "lax", secure: config.publicBaseUrl.startsWith("https:"), path: "/", maxAge: config.session.maxHours * 3600 };
}

const summaryOf = (row: SalespersonRow): SalespersonSummary => ({ id: row.id, name: row.name, email: row.email });

/**
 * `POST /api/salesperson/auth`. The same answer and the same argon2id work for an unknown email
 * and a wrong password; ten failures for one email within 15 minutes refuse further attempts (429)
 * until the window has passed. Logins and failed logins are audited.
 */
export async function loginSalesperson({ ctx, input }: { ctx: Ctx; input: { email: string; password: string } }): Promise<{ sessionId: string; salesperson: SalespersonSummary }> {
  const email = normalizeEmail(input.email);
  if (!email || !input.password) throw invalidCredentials();
  const now = ctx.clock.now();
  const audit = (success: boolean, account: SalespersonRow | undefined, details: Record<string, unknown>) =>
    withTransaction(ctx.db, (tx) =>
      recordAudit(tx, ctx, {
        action: "salesperson.login",
        resourceType: "salesperson",
        resourceId: account?.id ?? null,
        actorId: account?.id ?? null,
        organizationId: account?.organizationId ?? null,
        brandId: account?.brandId ?? null,
        success,
        details: { portal: "salesperson", email, ...details },
      }),
    );

  if ((await countRecentPortalFailures(ctx.db, email, new Date(now - PORTAL_WINDOW_MS))) >= PORTAL_FAILURES) {
    await audit(false, undefined, { reason: "too_many_attempts" });
    throw portalLocked();
  }

  const candidates = await findSalespeopleByEmail(ctx.db, email, MAX_ACCOUNTS_PER_EMAIL);
  let account: SalespersonRow | undefined;
  if (candidates.length === 0) await verifyPassword(null, input.password);
  for (const candidate of candidates) {
    if (await verifyPassword(candidate.passwordHash, input.password)) {
      account = candidate;
      break;
    }
  }
  if (!account) {
    await recordPortalAttempt(ctx.db, { id: newId("spla"), email, ipAddress: ctx.clientAddress ?? null, success: false, createdAt: new Date(now) });
    await audit(false, candidates.length === 1 ? candidates[0] : undefined, { reason: "invalid_credentials" });
    throw invalidCredentials();
  }

  const sessionId = randomToken(32);
  const signedIn = account;
  await withTransaction(ctx.db, async (tx) => {
    await recordPortalAttempt(tx, { id: newId("spla"), email, ipAddress: ctx.clientAddress ?? null, success: true, createdAt: new Date(now) });
    await insertPortalSession(tx, {
      idHash: sha256(sessionId),
      salespersonId: signedIn.id,
      createdAt: new Date(now),
      lastSeenAt: new Date(now),
      expiresAt: new Date(now + ctx.config.session.maxHours * 3_600_000),
    });
  });
  await audit(true, signedIn, {});
  return { sessionId, salesperson: summaryOf(signedIn) };
}

/** The signed-in salesperson of a portal cookie; 401 `{ error: Unauthorized, authenticated: false }` otherwise. */
export async function requirePortalSession(ctx: Ctx, rawId: string | undefined): Promise<SalespersonRow> {
  if (!rawId || rawId.length > 128) throw portalUnauthorized();
  const idHash = sha256(rawId);
  const found = await findPortalSession(ctx.db, idHash);
  if (!found) throw portalUnauthorized();
  const now = ctx.clock.now();
  // The administration session limits apply alike (SESSION_IDLE_MINUTES, SESSION_MAX_HOURS).
  if (isSessionOver(found.session, now, ctx.config.session.idleMinutes)) {
    await deletePortalSession(ctx.db, idHash);
    throw portalUnauthorized();
  }
  if (now - found.session.lastSeenAt.getTime() >= LAST_SEEN_GRANULARITY_MS) await touchPortalSession(ctx.db, idHash, new Date(now));
  return found.salesperson;
}

/**
 * `GET /api/salesperson/auth` (CONTRACT §12, §32), one mode at a time (§39): `livemode` asked for,
 * else the salesperson's brand's mode, else (no brand) live when any brand of the organization is.
 */
export async function describePortal({ ctx, rawId, livemode: asked }: { ctx: Ctx; rawId: string | undefined; livemode?: boolean }): Promise<PortalStateReply> {
  const salesperson = await requirePortalSession(ctx, rawId);
  const livemode = asked ?? (salesperson.brandId ? await shownLivemode(ctx, salesperson.brandId) : await organizationLivemode(ctx, salesperson.organizationId));
  const [sums, clawbackSums, lines, saleLines] = await Promise.all([
    portalTotalsByCurrency(ctx.db, salesperson, livemode),
    portalClawbacksByCurrency(ctx.db, salesperson, livemode),
    portalClawbackLines(ctx.db, salesperson, livemode, PORTAL_CLAWBACK_LINES),
    portalSaleLines(ctx.db, salesperson, livemode, PORTAL_SALE_LINES),
  ]);
  // Every clawback belongs to one of the salesperson's commissions, so its currency has an entry.
  const byCurrency = sums.map((row) => ({ ...row, clawedBack: 0, clawbackOpen: 0, ...clawbackSums.find((c) => c.currency === row.currency) }));
  // CONTRACT §32's members stay: with several currencies their amounts add minor units across them,
  // so the page shows `byCurrency` (docs/admin.md).
  const totals = { total: 0, pending: 0, approved: 0, paid: 0, count: 0, clawedBack: 0, clawbackOpen: 0 };
  for (const entry of byCurrency) for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += entry[key];
  return { authenticated: true, livemode, salesperson: summaryOf(salesperson), commissions: { ...totals, byCurrency, clawbacks: lines.map(clawbackLineOf) },
    sales: saleLines.map((sale) => ({
      orderId: sale.orderId,
      createdAt: sale.createdAt.getTime(),
      orderAmount: sale.orderAmountCents,
      commissionAmount: sale.commissionAmountCents,
      currency: sale.currency,
      status: sale.status,
    })),
  };
}

/** `DELETE /api/salesperson/auth`: ends the session when there is one; always answers success. */
export async function logoutSalesperson({ ctx, rawId }: { ctx: Ctx; rawId: string | undefined }): Promise<void> {
  if (!rawId || rawId.length > 128) return;
  const idHash = sha256(rawId);
  const found = await findPortalSession(ctx.db, idHash);
  if (!found) return;
  await withTransaction(ctx.db, async (tx) => {
    await deletePortalSession(tx, idHash);
    await recordAudit(tx, ctx, {
      action: "salesperson.logout",
      resourceType: "salesperson",
      resourceId: found.salesperson.id,
      actorId: found.salesperson.id,
      organizationId: found.salesperson.organizationId,
      brandId: found.salesperson.brandId,
      success: true,
    });
  });
}
