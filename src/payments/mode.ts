import { and, eq, isNull } from "drizzle-orm";
import type { Ctx } from "../ctx.js";
import { brands, orders } from "../db/schema/index.js";
import { PAYMENT_PROVIDERS } from "../providers/manifest.js";

// Which mode a read shows when none is named (CONTRACT §39, docs/decisions.md "Test and live").

type ModeCtx = Pick<Ctx, "db" | "providers">;

/**
 * The brand's mode: live when the registry would charge some payment provider of it with live
 * credentials (enabled, every required setting saved and readable: the registry's one rule, its cached
 * settings), else test. A webhook secret alone (kept for disputes) is no credential to charge with.
 */
export async function brandLivemode(ctx: ModeCtx, brandId: string): Promise<boolean> {
  for (const provider of PAYMENT_PROVIDERS) if (await ctx.providers.hasLiveCredentials(provider, brandId)) return true;
  return false;
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

/** Whether the brand has an order of that mode (orders_brand_mode_created_idx: one index probe). */
async function hasOrders(ctx: ModeCtx, brandId: string, livemode: boolean): Promise<boolean> {
  const rows = await ctx.db.select({ id: orders.id }).from(orders).where(and(eq(orders.brandId, brandId), eq(orders.livemode, livemode))).limit(1);
  return rows.length > 0;
}

/**
 * The mode a read shows when none is named (docs/decisions.md "Test and live", issue 36 item 14): the
 * brand's mode, except that a brand with live credentials but no live order yet and some test orders
 * shows test until its first live order (not "Real money" with zeros).
 */
export async function shownLivemode(ctx: ModeCtx, brandId: string): Promise<boolean> {
  if (!(await brandLivemode(ctx, brandId))) return false;
  if (await hasOrders(ctx, brandId, true)) return true;
  return !(await hasOrders(ctx, brandId, false));
}

/** The mode a read shows: the one asked for, else the one the brand's orders are in (shownLivemode). */
export async function readMode(ctx: ModeCtx, brandId: string, requested: boolean | undefined): Promise<boolean> {
  return requested ?? shownLivemode(ctx, brandId);
}
