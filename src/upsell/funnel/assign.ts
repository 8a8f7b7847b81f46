import { createHash } from "node:crypto";
import type { FunnelVariant } from "../../db/schema/index.js";

/**
 * The variant a buyer sees at a step: a stable hash of the original order id (with the funnel and
 * step, so steps are assigned independently) picks a point in the weights, so a reload shows the same.
 */
export function assignVariant<V extends Pick<FunnelVariant, "id" | "weight">>(variants: readonly V[], key: { originalOrderId: string; funnelId: string; stepIndex: number }): V {
  if (variants.length === 1) return variants[0]!;
  const digest = createHash("sha256").update(`${key.funnelId}:${key.stepIndex}:${key.originalOrderId}`).digest();
  const total = variants.reduce((sum, v) => sum + v.weight, 0);
  let point = (digest.readUInt32BE(0) / 2 ** 32) * total;
  for (const variant of variants) {
    if (point < variant.weight) return variant;
    point -= variant.weight;
  }
  return variants[variants.length - 1]!;
}
