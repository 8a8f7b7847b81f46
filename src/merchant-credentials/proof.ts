import type { Ctx } from "../ctx.js";
import { isApiActor } from "../http/auth.js";
import { assertScope, recordApiKeyRefusal } from "./api-key-caller.js";
import { apiKeyRequired, invalidApiKey, otherModeNotFound } from "./errors.js";

/**
 * CONTRACT §35: what sets a price or hands out or charges a saved payment method needs a merchant
 * credential of the order's brand — an API key of that brand with `upsell:write` — except on orders
 * paid through a demo-mode provider, where no real money moves (the SPEC walkthrough and the demo
 * pages keep working without a key). Anything else is 401 `API key required` and nothing happens.
 *
 * Issue 33 (CONTRACT §39): a key acts only on orders of its own mode. A test key naming a live order
 * (or a live key a test one) gets a not-found naming the mode, so a test key never leads to a live
 * charge, price or saved method.
 */
export async function assertMerchantProof(ctx: Ctx, order: { brandId: string; paidInDemo: boolean | null; livemode: boolean }): Promise<void> {
  const actor = ctx.actor;
  if (isApiActor(actor)) {
    if (actor.brandId !== order.brandId) {
      await recordApiKeyRefusal(ctx, "other_brand", actor);
      throw invalidApiKey();
    }
    if (actor.livemode !== order.livemode) {
      await recordApiKeyRefusal(ctx, "other_mode", actor, { livemode: actor.livemode });
      throw otherModeNotFound("Order", actor.livemode);
    }
    await assertScope(ctx, "upsell:write");
    return;
  }
  if (order.paidInDemo !== true) throw apiKeyRequired();
}
