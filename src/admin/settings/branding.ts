import { eq } from "drizzle-orm";
import type { Ctx } from "../../ctx.js";
import { brands } from "../../db/schema/index.js";
import { brandForHost as brandForDomainHost } from "../../domains/host-brand.js";

/** The brand a host serves: a verified custom domain's brand, else the default brand (src/domains/host-brand.ts). */
export async function brandForHost(ctx: Ctx, host: string | undefined): Promise<string> {
  return brandForDomainHost(ctx.db, host, ctx.clock);
}

/** GET /api/admin/branding, no authentication: the served brand's display name, nothing else. */
export async function getBranding({ ctx, host }: { ctx: Ctx; host: string | undefined }): Promise<{ companyName: string }> {
  const brandId = await brandForHost(ctx, host);
  const [brand] = await ctx.db.select({ name: brands.name }).from(brands).where(eq(brands.id, brandId)).limit(1);
  return { companyName: brand?.name ?? "Checkout" };
}
