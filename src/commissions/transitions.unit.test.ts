// The commission bulk-action table of CONTRACT §13: every (status, action) pair, allowed or refused.
import { describe, expect, it } from "vitest";
import { COMMISSION_ACTIONS, COMMISSION_STATUSES, transitionCommission, type CommissionAction } from "./transitions.js";
import type { CommissionStatus } from "../db/schema/index.js";

const ALLOWED: Record<string, CommissionStatus> = {
  "pending approve": "approved",
  "pending cancel": "cancelled",
  "approved cancel": "cancelled",
  "pending dispute": "disputed",
  "approved dispute": "disputed",
  "approved markPaid": "paid",
};

const pairs = COMMISSION_STATUSES.flatMap((status) => COMMISSION_ACTIONS.map((action) => [status, action] as [CommissionStatus, CommissionAction]));

describe("transitionCommission", () => {
  it("covers 5 statuses × 4 actions, 6 of them allowed", () => {
    expect(pairs).toHaveLength(20);
    expect(pairs.filter(([s, a]) => transitionCommission(s, a).allowed)).toHaveLength(6);
  });

  it.each(pairs)("%s + %s", (status, action) => {
    const expected = ALLOWED[`${status} ${action}`];
    const result = transitionCommission(status, action);
    if (expected) expect(result).toEqual({ allowed: true, to: expected });
    else expect(result).toEqual({ allowed: false, reason: expect.stringContaining(status) });
  });

  it("says why in words", () => {
    expect(transitionCommission("paid", "markPaid")).toEqual({ allowed: false, reason: "Cannot mark as paid: commission is paid" });
    expect(transitionCommission("cancelled", "approve")).toEqual({ allowed: false, reason: "Cannot approve: commission is cancelled" });
  });
});
