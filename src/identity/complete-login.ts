import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import type { LoginMethod } from "../db/schema/index.js";
import { initialTenant, issuePendingLogin, issueSession, type LoginOutcome } from "./sessions.js";
import type { UserRow } from "./store.js";

/**
 * After a first factor (password, magic link, social): a user with 2FA gets only a pending login
 * (CONTRACT §10, §23: never a session before the code); everyone else gets a new session on
 * their first organization and brand. Throws NO_ORGANIZATION for a user without organizations.
 */
export async function completeFirstFactor(tx: Db, ctx: Ctx, user: Pick<UserRow, "id" | "totpEnabled">, method: LoginMethod): Promise<LoginOutcome> {
  if (user.totpEnabled) {
    const pending = await issuePendingLogin(tx, ctx, user.id, method);
    await recordAudit(tx, ctx, { action: "user.login", resourceType: "user", resourceId: user.id, actorId: user.id, success: true, details: { method, stage: "pending_2fa" } });
    return pending;
  }
  const tenant = await initialTenant(tx, user.id);
  const session = await issueSession(tx, ctx, user.id, tenant);
  await recordAudit(tx, ctx, {
    action: "user.login",
    resourceType: "user",
    resourceId: user.id,
    actorId: user.id,
    organizationId: tenant.organizationId,
    brandId: tenant.brandId,
    success: true,
    details: { method },
  });
  return session;
}
