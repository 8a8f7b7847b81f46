import type { Db } from "../db/client.js";
import type { PaymentProviderType } from "../providers/types.js";

// MINIMAL version (SEAMS-34 §4, owner H5): replaced by the owner's daily counters on merge.

export interface AttemptForStats {
  brandId: string;
  livemode: boolean;
  provider: PaymentProviderType;
  at: Date;
  result: "approved" | "declined" | "failed";
  declineCode: string | null;
  cardBrand: string | null;
  binCountry: string | null;
  amountCents: number;
  currency: string;
  /** approved after a soft decline earlier in the same pay request */
  recovered: boolean;
}

export async function recordApprovalStats(_tx: Db, _attempt: AttemptForStats): Promise<void> {}

/** Today's approved volume per provider in a currency (UTC day), for route()'s daily caps. */
export async function dailyApprovedVolume(_db: Db, _brandId: string, _livemode: boolean, _currency: string, _day: Date): Promise<Map<string, number>> {
  return new Map();
}
