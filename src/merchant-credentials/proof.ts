import type { Ctx } from "../ctx.js";
import { isApiActor } from "../http/auth.js";
import { assertScope, recordApiKeyRefusal } from "./api-key-caller.js";
import { apiKeyRequired, invalidApiKey } from "./errors.js";

/**
 * CONTRACT §35: what sets a price or hands out or charges a saved payment method needs a merchant
 * credential of the order's brand — an API key of that brand with `upsell:write` — except on orders
 * paid through a demo-mode provider, where no real money moves (the SPEC walkthrough and the demo
 * pages keep working without a key). Anything else is 401 `API key required` and nothing happens.
 */
export async function assertMerchantProof(ctx: Ctx, order: { brandId: string; paidInDemo: boolean | null }): Promise<void> {
  const actor = ctx.actor;
  if (isApiActor(actor)) {
    if (actor.brandId !== order.brandId) {
      await recordApiKeyRefusal(ctx, "other_brand", actor);
      throw invalidApiKey();
    }
    await assertScope(ctx, "upsell:write");
    return;
  }
  if (order.paidInDemo !== true) throw apiKeyRequired();
}
