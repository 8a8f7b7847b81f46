export type CommissionType = "percentage" | "fixed";

export interface CommissionInput {
  orderAmountCents: number;
  /** A fraction for `percentage` (0.10 = 10 %), cents for `fixed`. Missing: 0 (see docs/checkout.md). */
  commissionRate?: number;
  commissionType?: CommissionType;
}

export interface CommissionAmount {
  commissionAmountCents: number;
  commissionRate: number;
  commissionType: CommissionType;
}

/**
 * CONTRACT §13: round(orderAmount × rate) for `percentage` (the default), the rate itself in cents
 * for `fixed`. The product is taken to 12 significant digits first, so a binary fraction such as
 * 1999 × 0.15 = 299.84999… rounds as the decimal 299.85 does (to 300).
 */
export function calculateCommission(input: CommissionInput): CommissionAmount {
  const commissionType = input.commissionType ?? "percentage";
  const commissionRate = input.commissionRate ?? 0;
  if (!Number.isFinite(commissionRate) || commissionRate < 0) throw new RangeError("commissionRate must be a non-negative number");
  const raw = commissionType === "fixed" ? commissionRate : input.orderAmountCents * commissionRate;
  return { commissionAmountCents: Math.round(Number(raw.toPrecision(12))), commissionRate, commissionType };
}
