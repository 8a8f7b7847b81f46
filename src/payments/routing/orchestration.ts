import type { PaymentProviderType } from "../../providers/types.js";
import type { RouteCounters } from "./route.js";

// MINIMAL version (SEAMS-34 §3, owner H3 "health"): replaced by the owner's circuit breakers and success rates on merge.

/** failed: ProviderError (timeout, 5xx) */
export type AttemptResult = "approved" | "declined" | "failed";

export interface Orchestration {
  /** Providers whose circuit is open for the brand are left out (half-open: one probe at a time may pass). */
  available(brandId: string, livemode: boolean, providers: readonly PaymentProviderType[]): Promise<PaymentProviderType[]>;
  /** After every provider attempt (approved, declined, failed): feeds the circuit and the success rates. Never throws. */
  record(attempt: { brandId: string; livemode: boolean; provider: PaymentProviderType; cardBrand: string | null; currency: string; result: AttemptResult }): Promise<void>;
  /** The counters route() reads (success rates; dailyVolume is filled by the caller from approval stats). */
  successRates(brandId: string, livemode: boolean): Promise<RouteCounters["successRate"]>;
}

export function createOrchestration(): Orchestration {
  return {
    available: async (_brandId, _livemode, providers) => [...providers],
    record: async () => {},
    successRates: async () => () => null,
  };
}
