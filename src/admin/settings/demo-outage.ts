import type { Ctx } from "../../ctx.js";
import { withTransaction } from "../../db/transaction.js";
import { assertRole, brandOfScope } from "../../http/auth.js";
import { recordAudit } from "../../audit/record.js";
import { AppError, validationError } from "../../lib/errors.js";
import { PAYMENT_PROVIDERS, type PaymentProviderType } from "../../providers/manifest.js";
import { testModeDisabled } from "../../providers/registry.js";
import { setDemoOutage } from "../../providers/settings-store.js";
import type { DemoOutageBody, DemoOutageReply } from "./schemas.js";

const isPaymentProvider = (provider: string): provider is PaymentProviderType => (PAYMENT_PROVIDERS as readonly string[]).includes(provider);

/**
 * PUT /api/admin/settings/demo-outage (issue 34): the brand's "Simulate outage" switch of one
 * payment provider in test mode: `down` (the demo adapter fails at once, nothing charged), `timeout`
 * (it charges, waits 1.5 s and fails as a timeout), `off`. Kept on the provider's test settings row,
 * which the registry's cached settings read carries (no statement on the pay path); audited; this
 * process's cache is dropped so it applies at once (other processes within 5 s). Live mode: 409
 * OUTAGE_TEST_MODE_ONLY; PAYMENT_MODE=live: 409 TEST_MODE_DISABLED.
 */
export async function updateDemoOutage({ ctx, input }: { ctx: Ctx; input: DemoOutageBody }): Promise<DemoOutageReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  if (input.livemode === true) throw new AppError("OUTAGE_TEST_MODE_ONLY", "Simulate outage is a test-mode switch: live providers cannot be made to fail", "livemode");
  if (ctx.config.paymentMode === "live") throw testModeDisabled();
  if (!isPaymentProvider(input.provider)) throw validationError(`Invalid request: provider must be one of ${PAYMENT_PROVIDERS.join(", ")}`, "provider");
  const provider = input.provider;
  const demoOutage = input.outage === "off" ? null : input.outage;
  await withTransaction(ctx.db, async (tx) => {
    await setDemoOutage(tx, { brandId, provider, demoOutage, updatedAt: new Date(ctx.clock.now()) });
    await recordAudit(tx, ctx, {
      action: "settings.demo_outage",
      resourceType: "provider_settings",
      resourceId: provider,
      success: true,
      organizationId: scope.organizationId,
      brandId,
      details: { provider, mode: "test", livemode: false, outage: input.outage },
    });
  });
  ctx.providers.invalidate(brandId);
  return { success: true, provider, outage: input.outage, livemode: false };
}
