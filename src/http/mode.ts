import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { Type } from "typebox";
import type { Db } from "../db/client.js";
import { brands, providerSettings } from "../db/schema/index.js";

// Test and live never mix (CONTRACT §39, issue 33): every read that shows orders or money shows one
// mode. The back office names it (`livemode=true|false`); a merchant API key is of one mode.

/** The `livemode` query parameter of every list and stat of the back office. */
export const LivemodeParam = Type.Optional(
  Type.Boolean({ description: "true: live (real money) only; false: test only. Default: the brand's mode, live when it has saved real provider credentials, else test" }),
);

/** The `livemode` member of an answer: which mode it shows. */
export const LivemodeMember = Type.Boolean({ description: "the mode shown: true live (real money), false test" });

/**
 * The brand's mode when none is named: live when it has saved real credentials for an enabled
 * provider, else test. The rule of migration 0022's backfill, so a demo-only brand's lists stay
 * what they were and a live shop's figures are not inflated by its tests.
 */
export async function brandLivemode(db: Db, brandId: string): Promise<boolean> {
  const [row] = await db
    .select({ provider: providerSettings.provider })
    .from(providerSettings)
    .where(and(eq(providerSettings.brandId, brandId), eq(providerSettings.enabled, true), isNotNull(providerSettings.sealedSecrets)))
    .limit(1);
  return row !== undefined;
}

/** An organization's mode when none is named (the salesperson portal, which spans its brands): live when any brand of it is. */
export async function organizationLivemode(db: Db, organizationId: string): Promise<boolean> {
  const [row] = await db
    .select({ provider: providerSettings.provider })
    .from(providerSettings)
    .innerJoin(brands, eq(brands.id, providerSettings.brandId))
    .where(and(eq(brands.organizationId, organizationId), isNull(brands.deletedAt), eq(providerSettings.enabled, true), isNotNull(providerSettings.sealedSecrets)))
    .limit(1);
  return row !== undefined;
}

/** The mode a read shows: the one asked for, else the brand's. */
export async function readMode(db: Db, brandId: string, requested: boolean | undefined): Promise<boolean> {
  return requested ?? brandLivemode(db, brandId);
}
