import type { Ctx } from "../ctx.js";
import { withTransaction } from "../db/transaction.js";
import { recordAudit } from "../audit/record.js";
import { validationError } from "../lib/errors.js";
import { missingRequiredFields, registrationDisabled, registrationMaintenance } from "./errors.js";
import { checkPasswordPolicy, hashPassword } from "./password.js";
import { provisionAccount } from "./provision.js";
import { issueSession, type IssuedSession } from "./sessions.js";

export interface RegisterInput {
  name: string;
  email: string;
  password: string;
  orgName: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}

/** REGISTRATION_MODE (CONTRACT "Configuration"): checked before anything else about the request. */
export function assertRegistrationOpen(ctx: Pick<Ctx, "config">): void {
  if (ctx.config.registrationMode === "disabled") throw registrationDisabled();
  if (ctx.config.registrationMode === "maintenance") throw registrationMaintenance();
}

/**
 * SPEC "User authentication" rule 1, CONTRACT §11, §27: creates the user (with its customer record),
 * the organization and default brand (or adopts the default ones for the first user), and logs in.
 */
export async function registerUser({ ctx, input }: { ctx: Ctx; input: RegisterInput }): Promise<IssuedSession> {
  assertRegistrationOpen(ctx);
  const name = input.name.trim();
  const orgName = input.orgName.trim();
  const email = normalizeEmail(input.email);
  if (!name || !orgName || !email || !input.password) throw missingRequiredFields();
  if (!isEmail(email)) throw validationError("Invalid email address", "email");
  if (name.length > 200 || orgName.length > 200) throw validationError("Name too long", name.length > 200 ? "name" : "orgName");
  checkPasswordPolicy(input.password);
  const passwordHash = await hashPassword(input.password);

  return withTransaction(ctx.db, async (tx) => {
    const account = await provisionAccount(tx, ctx, { email, name, passwordHash, orgName });
    const actor = { ...ctx, actor: { type: "user" as const, id: account.userId, organizationId: account.organizationId, brandId: account.brandId } };
    await recordAudit(tx, actor, { action: "user.register", resourceType: "user", resourceId: account.userId, success: true, details: { method: "password", adoptedDefaultOrganization: account.adoptedDefault } });
    const session = await issueSession(tx, ctx, account.userId, { organizationId: account.organizationId, brandId: account.brandId });
    await recordAudit(tx, actor, { action: "user.login", resourceType: "user", resourceId: account.userId, success: true, details: { method: "registration" } });
    return session;
  });
}
