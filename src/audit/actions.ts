/**
 * The closed list of audit actions, named `entity.verb` (STYLE "Data, transactions, audit").
 * A feature adds its actions here; recordAudit refuses anything else.
 */
export const AUDIT_ACTIONS = [
  // identity
  "user.register",
  "user.login",
  "user.logout",
  "user.lock",
  "user.throttle",
  "magic_link.request",
  "magic_link.use",
  "social_account.link",
  "two_factor.setup",
  "two_factor.enable",
  "two_factor.verify",
  "organization.switch",
  "brand.switch",
  // provider settings and CRM utilities
  "settings.update",
  "crm.test",
  "crm.retry",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const KNOWN = new Set<string>(AUDIT_ACTIONS);
export function isAuditAction(value: string): value is AuditAction {
  return KNOWN.has(value);
}
