import { eq } from "drizzle-orm";
import type { Ctx } from "../../ctx.js";
import { brands } from "../../db/schema/index.js";
import { withTransaction } from "../../db/transaction.js";
import { assertRole, brandOfScope } from "../../http/auth.js";
import { brandForHost as brandForDomainHost } from "../../domains/host-brand.js";
import { recordAudit } from "../../audit/record.js";
import { validationError } from "../../lib/errors.js";
import type { BrandingReply, UpdateBrandingBody } from "./schemas.js";

/** The brand a host serves: a verified custom domain's brand, else the default brand (src/domains/host-brand.ts). */
export async function brandForHost(ctx: Ctx, host: string | undefined): Promise<string> {
  return brandForDomainHost(ctx.db, host, ctx.clock);
}

type Style = { logoUrl?: string; color?: string };

/** `companyName`, plus `logoUrl` and `color` when the brand has them stored. */
const replyOf = (name: string, style: Style): BrandingReply => ({
  companyName: name,
  ...(style.logoUrl ? { logoUrl: style.logoUrl } : {}),
  ...(style.color ? { color: style.color } : {}),
});

/** GET /api/admin/branding, no authentication: the served brand's display name, logo and colour, nothing else. */
export async function getBranding({ ctx, host }: { ctx: Ctx; host: string | undefined }): Promise<BrandingReply> {
  const brandId = await brandForHost(ctx, host);
  const [brand] = await ctx.db.select({ name: brands.name, style: brands.style }).from(brands).where(eq(brands.id, brandId)).limit(1);
  return brand ? replyOf(brand.name, brand.style ?? {}) : { companyName: "Checkout" };
}

/** GET /api/admin/brand-look: the session brand's name, logo and colour as stored, for the form that edits them (any role). */
export async function getSessionBrandLook({ ctx }: { ctx: Ctx }): Promise<BrandingReply> {
  const brandId = await brandOfScope(ctx.db, assertRole(ctx, "member"));
  const [brand] = await ctx.db.select({ name: brands.name, style: brands.style }).from(brands).where(eq(brands.id, brandId)).limit(1);
  return replyOf(brand!.name, brand!.style ?? {});
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

function checkedStyle(input: UpdateBrandingBody): Style {
  const changes: Style = {};
  if (input.logoUrl !== undefined) {
    const value = input.logoUrl.trim();
    if (value !== "") {
      let url: URL | null = null;
      try {
        url = new URL(value);
      } catch {
        url = null;
      }
      // https only, except for a local development host: the logo is shown on the checkout page.
      const local = url !== null && url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
      if (!url || (url.protocol !== "https:" && !local)) throw validationError("Invalid request: logoUrl must be an https URL", "logoUrl");
    }
    changes.logoUrl = value;
  }
  if (input.color !== undefined) {
    const value = input.color.trim();
    if (value !== "" && !COLOR.test(value)) throw validationError("Invalid request: color must be #rrggbb", "color");
    changes.color = value.toLowerCase();
  }
  return changes;
}

/**
 * PUT /api/admin/branding (not in SPEC): the session brand's logo URL and colour, merged into
 * brands.style (omitted keeps, empty string removes). Audited as brand.style_update.
 */
export async function updateBranding({ ctx, input }: { ctx: Ctx; input: UpdateBrandingBody }): Promise<BrandingReply & { success: true }> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  const changes = checkedStyle(input);
  return withTransaction(ctx.db, async (tx) => {
    const [brand] = await tx.select({ name: brands.name, style: brands.style }).from(brands).where(eq(brands.id, brandId)).for("update").limit(1);
    const style: Style = { ...(brand!.style ?? {}) };
    for (const [key, value] of Object.entries(changes) as [keyof Style, string][]) {
      if (value === "") delete style[key];
      else style[key] = value;
    }
    await tx.update(brands).set({ style }).where(eq(brands.id, brandId));
    await recordAudit(tx, ctx, {
      action: "brand.style_update",
      resourceType: "brand",
      resourceId: brandId,
      success: true,
      organizationId: scope.organizationId,
      brandId,
      details: { changedKeys: Object.keys(changes) },
    });
    return { success: true as const, ...replyOf(brand!.name, style) };
  });
}
