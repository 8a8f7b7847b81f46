import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { providerSettings, providerTestSettings } from "../db/schema/index.js";
import { seal, unseal } from "../lib/crypto.js";
import { isSettingsProvider, PROVIDER_SETTINGS, type SettingsProvider } from "./catalog.js";
import type { DemoOutage, PaymentProviderType } from "./types.js";

/** One provider's stored settings: clear values and the sealed secrets, as the row holds them. */
export interface StoredSettings {
  provider: SettingsProvider;
  enabled: boolean;
  publicValues: Record<string, unknown>;
  sealedSecrets: string | null;
  /** Test settings only (issue 34): the demo adapter's "Simulate outage" switch; null or absent: none. */
  demoOutage?: DemoOutage | null;
}

/**
 * The table of a mode's credentials (issue 33): live ones in provider_settings, a provider's sandbox
 * credentials saved as TEST credentials in provider_test_settings (same columns, migration 0027).
 */
const tableOf = (livemode: boolean) => (livemode ? providerSettings : providerTestSettings);

/** Every provider row of a brand in one mode (rows of providers we no longer know are skipped). */
export async function loadBrandSettings(db: Db, brandId: string, livemode = true): Promise<StoredSettings[]> {
  if (!livemode) {
    // The test rows carry the demo outage switch too: the same one statement.
    const t = providerTestSettings;
    const rows = await db
      .select({ provider: t.provider, enabled: t.enabled, publicValues: t.publicValues, sealedSecrets: t.sealedSecrets, demoOutage: t.demoOutage })
      .from(t)
      .where(eq(t.brandId, brandId));
    return rows.filter((r): r is typeof r & StoredSettings => isSettingsProvider(r.provider));
  }
  const table = tableOf(livemode);
  const rows = await db
    .select({ provider: table.provider, enabled: table.enabled, publicValues: table.publicValues, sealedSecrets: table.sealedSecrets })
    .from(table)
    .where(eq(table.brandId, brandId));
  return rows.filter((r): r is StoredSettings => isSettingsProvider(r.provider));
}

/** The secrets of a row, opened with the keyring (current key first). */
export function openSecrets(stored: Pick<StoredSettings, "sealedSecrets">, keyring: readonly Buffer[]): Record<string, string> {
  return stored.sealedSecrets ? (JSON.parse(unseal(stored.sealedSecrets, keyring)) as Record<string, string>) : {};
}

/** Every value of a row in clear (public values and opened secrets). Only for adapter calls and merging. */
export function valuesOf(stored: StoredSettings, keyring: readonly Buffer[]): Record<string, unknown> {
  return { ...stored.publicValues, ...openSecrets(stored, keyring) };
}

/**
 * Like valuesOf, but a row whose secrets no longer open (ENCRYPTION_KEY changed without keeping the
 * old key, or a damaged value) gives its public values only: the provider then counts as not
 * configured instead of failing every request of the brand.
 */
export function readableValuesOf(stored: StoredSettings, keyring: readonly Buffer[]): { values: Record<string, unknown>; secretsReadable: boolean } {
  try {
    return { values: valuesOf(stored, keyring), secretsReadable: true };
  } catch {
    return { values: { ...stored.publicValues }, secretsReadable: false };
  }
}

/** Splits clear values into the row's public part and its sealed secrets. */
export function splitForStorage(provider: SettingsProvider, values: Record<string, unknown>, key: Buffer): { publicValues: Record<string, unknown>; sealedSecrets: string | null } {
  const secretKeys = new Set(PROVIDER_SETTINGS[provider].secrets);
  const publicValues: Record<string, unknown> = {};
  const secrets: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) (secretKeys.has(k) ? secrets : publicValues)[k] = v;
  return { publicValues, sealedSecrets: Object.keys(secrets).length > 0 ? seal(JSON.stringify(secrets), key) : null };
}

export async function upsertProviderSettings(
  tx: Db,
  row: { brandId: string; provider: SettingsProvider; enabled: boolean; publicValues: Record<string, unknown>; sealedSecrets: string | null; updatedAt: Date },
  livemode = true,
): Promise<void> {
  const table = tableOf(livemode);
  await tx
    .insert(table)
    .values(row)
    .onConflictDoUpdate({
      target: [table.brandId, table.provider],
      set: { enabled: row.enabled, publicValues: row.publicValues, sealedSecrets: row.sealedSecrets, updatedAt: row.updatedAt },
    });
}

export async function findProviderSettings(db: Db, brandId: string, provider: SettingsProvider, livemode = true): Promise<StoredSettings | null> {
  const table = tableOf(livemode);
  const [row] = await db
    .select({ provider: table.provider, enabled: table.enabled, publicValues: table.publicValues, sealedSecrets: table.sealedSecrets })
    .from(table)
    .where(and(eq(table.brandId, brandId), eq(table.provider, provider)))
    .limit(1);
  return row ? (row as StoredSettings) : null;
}

/**
 * Sets (or clears, null) the demo outage switch of a provider's test settings (issue 34); a brand
 * without test settings for it gets a row holding the switch alone (enabled, no credentials: the
 * provider stays on its demo adapter).
 */
export async function setDemoOutage(tx: Db, row: { brandId: string; provider: PaymentProviderType; demoOutage: DemoOutage | null; updatedAt: Date }): Promise<void> {
  await tx
    .insert(providerTestSettings)
    .values({ brandId: row.brandId, provider: row.provider, enabled: true, publicValues: {}, sealedSecrets: null, demoOutage: row.demoOutage, updatedAt: row.updatedAt })
    .onConflictDoUpdate({ target: [providerTestSettings.brandId, providerTestSettings.provider], set: { demoOutage: row.demoOutage, updatedAt: row.updatedAt } });
}

