import { eq } from "drizzle-orm";
import { recordAudit } from "../audit/record.js";
import type { Ctx } from "../ctx.js";
import { brands } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, brandOfScope } from "../http/auth.js";
import { isEmail } from "../identity/register.js";
import { validationError } from "../lib/errors.js";
import type { ReceiptSettings, UpdateReceiptSettingsBody } from "./schemas.js";

/** `GET /api/admin/receipt-settings`: any member, the session's brand. */
export async function getReceiptSettings({ ctx }: { ctx: Ctx }): Promise<ReceiptSettings> {
  const brandId = await brandOfScope(ctx.db, assertRole(ctx, "member"));
  const [brand] = await ctx.db.select({ enabled: brands.receiptsEnabled, supportEmail: brands.supportEmail }).from(brands).where(eq(brands.id, brandId));
  return brand!;
}

/** `PUT /api/admin/receipt-settings`: admin or owner. Omitted members keep their value; audited as brand.receipts_update. */
export async function updateReceiptSettings({ ctx, input }: { ctx: Ctx; input: UpdateReceiptSettingsBody }): Promise<ReceiptSettings & { success: true }> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  const change: { receiptsEnabled?: boolean; supportEmail?: string | null } = {};
  if (input.enabled !== undefined) change.receiptsEnabled = input.enabled;
  if (input.supportEmail !== undefined) {
    const email = input.supportEmail?.trim() || null;
    if (email !== null && !isEmail(email)) throw validationError("Invalid request: supportEmail must be an email address", "supportEmail");
    change.supportEmail = email;
  }
  return withTransaction(ctx.db, async (tx) => {
    const columns = { enabled: brands.receiptsEnabled, supportEmail: brands.supportEmail };
    const [saved] = Object.keys(change).length === 0 ? await tx.select(columns).from(brands).where(eq(brands.id, brandId)) : await tx.update(brands).set(change).where(eq(brands.id, brandId)).returning(columns);
    await recordAudit(tx, ctx, { action: "brand.receipts_update", resourceType: "brand", resourceId: brandId, success: true, organizationId: scope.organizationId, brandId, details: saved });
    return { success: true as const, ...saved! };
  });
}
