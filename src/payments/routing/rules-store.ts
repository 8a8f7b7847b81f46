import type { Db } from "../../db/client.js";
import type { RoutingRule } from "./route.js";

// MINIMAL version (SEAMS-34 §2, owner H2 "routing"): replaced by the owner's rules store on merge.

/** A brand's current routing rules for the pay path. */
export async function loadRoutingRules(_db: Db, _brandId: string, _livemode: boolean): Promise<RoutingRule[]> {
  return [];
}
