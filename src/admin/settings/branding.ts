import { eq } from "drizzle-orm";
import type { Ctx } from "../../ctx.js";
import { brands, DEFAULT_BRAND_ID } from "../../db/schema/index.js";

/**
 * The brand a host serves. Custom domains do not exist yet, so every host is served by the default
 * brand (the platform default); the domains feature replaces this lookup.
 */
export async function brandForHost(_ctx: Ctx, _host: string | undefined): Promise<string> {
  return DEFAULT_BRAND_ID;
}

/** GET /api/admin/branding, no authentication: the served brand's display name, nothing else. */
export async function getBranding({ ctx, host }: { ctx: Ctx; host: string | undefined }): Promise<{ companyName: string }> {
  const brandId = await brandForHost(ctx, host);
  const [brand] = await ctx.db.select({ name: brands.name }).from(brands).where(eq(brands.id, brandId)).limit(1);
  return { companyName: brand?.name ?? "Checkout" };
}
