import type { CommissionStatus } from "../db/schema/index.js";

export const COMMISSION_STATUSES = ["pending", "approved", "paid", "cancelled", "disputed"] as const satisfies readonly CommissionStatus[];
export const COMMISSION_ACTIONS = ["approve", "cancel", "dispute", "markPaid"] as const;
export type CommissionAction = (typeof COMMISSION_ACTIONS)[number];

/** CONTRACT §13: which statuses each bulk action moves from, and to what. Everything else is refused. */
export const COMMISSION_TRANSITIONS: Record<CommissionAction, { from: readonly CommissionStatus[]; to: CommissionStatus }> = {
  approve: { from: ["pending"], to: "approved" },
  cancel: { from: ["pending", "approved"], to: "cancelled" },
  dispute: { from: ["pending", "approved"], to: "disputed" },
  markPaid: { from: ["approved"], to: "paid" },
};

export type CommissionTransition = { allowed: true; to: CommissionStatus } | { allowed: false; reason: string };

/** The pure transition function: the next status, or why the action does not apply to this status. */
export function transitionCommission(status: CommissionStatus, action: CommissionAction): CommissionTransition {
  const rule = COMMISSION_TRANSITIONS[action];
  if (rule.from.includes(status)) return { allowed: true, to: rule.to };
  return { allowed: false, reason: `Cannot ${action === "markPaid" ? "mark as paid" : action}: commission is ${status}` };
}
