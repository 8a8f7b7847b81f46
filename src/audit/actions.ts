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
  // administration: users, organizations, brands
  "user.create",
  "user.update_role",
  "user.remove",
  "organization.create",
  "organization.delete",
  "organization.restore",
  "brand.create",
  "brand.delete",
  "brand.restore",
  "brand.update",
  "brand.style_update",
  "brand.receipts_update",
  // commissions (bulk actions, CONTRACT §13)
  "commission.approve",
  "commission.cancel",
  "commission.dispute",
  "commission.mark_paid",
  // commissions follow the money (CONTRACT §38): a refund or dispute moves them, a payout nets clawbacks
  "commission.adjust",
  "commission.clawback",
  "commission.restore",
  "commission.net_clawback",
  // salespeople (CONTRACT §12)
  "salesperson.create",
  "salesperson.login",
  "salesperson.logout",
  // administration utilities
  "checkout_link.generate",
  // provider settings and CRM utilities
  "settings.update",
  "settings.demo_outage",
  "crm.test",
  "crm.retry",
  // webhooks (docs/webhooks.md)
  "webhook_endpoint.create",
  "webhook_endpoint.delete",
  "webhook_endpoint.test",
  "webhook_endpoint.disable",
  "webhook_delivery.resend",
  // the events API (issue 33): a new delivery of an event asked for with a key, a test event made
  "webhook_delivery.redeliver",
  "event.trigger",
  // custom domains and marketing list mappings
  "domain.add",
  "domain.remove",
  "domain.verify",
  "domain.set_primary",
  "list_mapping.update",
  // merchant credentials (issue 15, CONTRACT §34): `api_key.refused` carries the reason
  "api_key.create",
  "api_key.revoke",
  "api_key.refused",
  // orders (issue 17): a refund asked for, with its outcome
  "order.refund",
  // a merchant's answer to a provider's dispute
  "dispute.accept",
  "dispute.evidence",
  // a dispute of a test charge, simulated from the back office (issue 33)
  "dispute.simulate",
  "signing_key.create",
  "signing_key.retire",
  // 2FA recovery and turning 2FA off (issue 18 item 15)
  "two_factor.disable",
  "two_factor.recovery_codes_generate",
  "two_factor.recovery_code_use",
  // lasting payment links (issue 18 item 14)
  "checkout_link.create",
  "checkout_link.disable",
  // upsell funnels (issue 19)
  "funnel.create",
  "funnel.update",
  "funnel.delete",
  "funnel.promote",
  // payment orchestration (issue 34): a new version of a brand's routing rules of one mode
  "routing.update",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

const KNOWN = new Set<string>(AUDIT_ACTIONS);
export function isAuditAction(value: string): value is AuditAction {
  return KNOWN.has(value);
}
