import type { Ctx } from "../ctx.js";
import { AppError } from "../lib/errors.js";
import { testModeDisabled } from "../providers/registry.js";
import { PAYMENT_PROVIDERS } from "../providers/types.js";

export type LinkModeChoice = "test" | "live";

/**
 * Issue 33: the mode of a link the back office makes (a payment link, or the generator's one-hour
 * link), fixed at creation and carried by every checkout it makes. Without `mode`, the brand's mode
 * at creation: live when the brand has live credentials for some payment provider (or
 * PAYMENT_MODE=live), else test. A live link needs them (409 PROVIDER_NOT_CONFIGURED: no buyer
 * should meet a link that cannot be paid); a test link is refused with PAYMENT_MODE=live.
 */
export async function linkMode(ctx: Ctx, brandId: string, mode: LinkModeChoice | undefined): Promise<boolean> {
  if (mode === "test") {
    if (ctx.config.paymentMode === "live") throw testModeDisabled();
    return false;
  }
  const live = (await Promise.all(PAYMENT_PROVIDERS.map((p) => ctx.providers.hasLiveCredentials(p, brandId)))).some(Boolean);
  if (mode === "live" && !live) throw new AppError("PROVIDER_NOT_CONFIGURED", "Payment provider not configured: no payment provider has live credentials on this brand");
  return mode === "live" || live || ctx.config.paymentMode === "live";
}
