import type { Orchestration } from "../../ctx.js";

// MINIMAL version (SEAMS-34 §3, owner H3 "health"): replaced by the owner's circuit breakers and success rates on merge.

// Orchestration and AttemptResult are declared in ctx.ts (below payments/ in the layers, Ctx carries one).
export type { AttemptResult, Orchestration } from "../../ctx.js";

export function createOrchestration(): Orchestration {
  return {
    available: async (_brandId, _livemode, providers) => [...providers],
    record: async () => {},
    successRates: async () => () => null,
  };
}
