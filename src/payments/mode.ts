import { and, eq, isNull } from "drizzle-orm";
import type { Ctx } from "../ctx.js";
import { brands } from "../db/schema/index.js";
import { PAYMENT_PROVIDERS } from "../providers/manifest.js";
import { isConfigured } from "../providers/catalog.js";
import { loadBrandSettings, readableValuesOf } from "../providers/settings-store.js";

// Which mode a read shows when none is named (CONTRACT §39, docs/decisions.md "Test and live").

type ModeCtx = Pick<Ctx, "db" | "config">;

/**
 * The brand's mode: live when it has an enabled payment provider configured with real credentials
 * (every required setting saved and readable: the registry then charges through the real adapter),
 * else test. A webhook secret alone (kept for disputes) is no credential to charge with.
 */
export async function brandLivemode(ctx: ModeCtx, brandId: string): Promise<boolean> {
  const settings = await loadBrandSettings(ctx.db, brandId);
  return settings.some(
    (stored) =>
      stored.enabled &&
      (PAYMENT_PROVIDERS as readonly string[]).includes(stored.provider) &&
      isConfigured(stored.provider, readableValuesOf(stored, ctx.config.encryptionKeyring).values),
  );
}

/** An organization's mode (the salesperson portal, which spans its brands): live when any brand of it is. */
export async function organizationLivemode(ctx: ModeCtx, organizationId: string): Promise<boolean> {
  const rows = await ctx.db
    .select({ id: brands.id })
    .from(brands)
    .where(and(eq(brands.organizationId, organizationId), isNull(brands.deletedAt)));
  for (const row of rows) if (await brandLivemode(ctx, row.id)) return true;
  return false;
}

/** The mode a read shows: the one asked for, else the brand's. */
export async function readMode(ctx: ModeCtx, brandId: string, requested: boolean | undefined): Promise<boolean> {
  return requested ?? brandLivemode(ctx, brandId);
}
