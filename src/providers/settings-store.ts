import { and, eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { providerSettings } from "../db/schema/index.js";
import { seal, unseal } from "../lib/crypto.js";
import { isSettingsProvider, PROVIDER_SETTINGS, type SettingsProvider } from "./catalog.js";

/** One provider's stored settings: clear values and the sealed secrets, as the row holds them. */
export interface StoredSettings {
  provider: SettingsProvider;
  enabled: boolean;
  publicValues: Record<string, unknown>;
  sealedSecrets: string | null;
}

/** Every provider row of a brand (rows of providers we no longer know are skipped). */
export async function loadBrandSettings(db: Db, brandId: string): Promise<StoredSettings[]> {
  const rows = await db
    .select({ provider: providerSettings.provider, enabled: providerSettings.enabled, publicValues: providerSettings.publicValues, sealedSecrets: providerSettings.sealedSecrets })
    .from(providerSettings)
    .where(eq(providerSettings.brandId, brandId));
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
): Promise<void> {
  await tx
    .insert(providerSettings)
    .values(row)
    .onConflictDoUpdate({
      target: [providerSettings.brandId, providerSettings.provider],
      set: { enabled: row.enabled, publicValues: row.publicValues, sealedSecrets: row.sealedSecrets, updatedAt: row.updatedAt },
    });
}

export async function findProviderSettings(db: Db, brandId: string, provider: SettingsProvider): Promise<StoredSettings | null> {
  const [row] = await db
    .select({ provider: providerSettings.provider, enabled: providerSettings.enabled, publicValues: providerSettings.publicValues, sealedSecrets: providerSettings.sealedSecrets })
    .from(providerSettings)
    .where(and(eq(providerSettings.brandId, brandId), eq(providerSettings.provider, provider)))
    .limit(1);
  return row ? (row as StoredSettings) : null;
}
