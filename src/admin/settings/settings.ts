import type { Ctx } from "../../ctx.js";
import { withTransaction } from "../../db/transaction.js";
import { assertRole, brandOfScope } from "../../http/auth.js";
import { recordAudit } from "../../audit/record.js";
import { AppError, validationError } from "../../lib/errors.js";
import { checkOutgoingUrl, UrlRefused } from "../../lib/url-guard.js";
import { CATEGORIES, isConfigured, isSettingsProvider, keysOf, PROVIDER_SETTINGS, providerCategories, SETTINGS_PROVIDERS, type SettingsProvider } from "../../providers/catalog.js";
import { PAYMENT_PROVIDERS } from "../../providers/manifest.js";
import { findProviderSettings, loadBrandSettings, readableValuesOf, splitForStorage, upsertProviderSettings, type StoredSettings } from "../../providers/settings-store.js";
import type { SettingsReply, UpdateSettingsBody, UpdateSettingsReply } from "./schemas.js";

/**
 * A hint of a secret, never the secret (CONTRACT §15): its `xx_` prefix when it has one and its last
 * four characters when it is long enough that they give little away (`sk_…4242`, `••••4242`).
 */
export function maskSecret(value: string): string {
  const prefix = /^[A-Za-z]{2,5}_/.exec(value)?.[0];
  const tail = value.length >= 12 ? value.slice(-4) : "";
  return prefix ? `${prefix}…${tail}` : `••••${tail}`;
}

function maskedView(provider: SettingsProvider, stored: StoredSettings | undefined, keyring: readonly Buffer[]): Record<string, string | boolean> {
  if (!stored) return { enabled: false };
  const secrets = new Set(PROVIDER_SETTINGS[provider].secrets);
  const view: Record<string, string | boolean> = { enabled: stored.enabled };
  for (const [key, value] of Object.entries(readableValuesOf(stored, keyring).values)) {
    if (key === "enabled" || value === undefined || value === null) continue;
    view[key] = secrets.has(key) ? maskSecret(String(value)) : (value as string | boolean);
  }
  return view;
}

const statusOf = (provider: SettingsProvider, stored: StoredSettings | undefined, keyring: readonly Buffer[]) =>
  stored && isConfigured(provider, readableValuesOf(stored, keyring).values) ? ("configured" as const) : ("not_configured" as const);

/** GET /api/admin/settings: every provider of the session's brand, live and test (sandbox) credentials, secrets masked. */
export async function getSettings({ ctx }: { ctx: Ctx }): Promise<SettingsReply> {
  const scope = assertRole(ctx, "member");
  const brandId = await brandOfScope(ctx.db, scope);
  const keyring = ctx.config.encryptionKeyring;
  const [live, test] = await Promise.all([loadBrandSettings(ctx.db, brandId, true), loadBrandSettings(ctx.db, brandId, false)]);
  const stored = new Map(live.map((s) => [s.provider, s]));
  const storedTest = new Map(test.map((s) => [s.provider, s]));
  const settings: SettingsReply["settings"] = {};
  const status: SettingsReply["status"] = {};
  const testSettings: SettingsReply["testSettings"] = {};
  const testStatus: SettingsReply["testStatus"] = {};
  for (const provider of SETTINGS_PROVIDERS) {
    settings[provider] = maskedView(provider, stored.get(provider), keyring);
    status[provider] = statusOf(provider, stored.get(provider), keyring);
    testSettings[provider] = maskedView(provider, storedTest.get(provider), keyring);
    testStatus[provider] = statusOf(provider, storedTest.get(provider), keyring);
  }
  const fields: SettingsReply["fields"] = {};
  for (const provider of SETTINGS_PROVIDERS) {
    const spec = PROVIDER_SETTINGS[provider];
    fields[provider] = { required: [...spec.required], optional: [...spec.optional], secrets: [...spec.secrets], booleans: [...spec.booleans] };
  }
  const demoOutages: SettingsReply["demoOutages"] = {};
  for (const row of test) if (row.demoOutage) demoOutages[row.provider] = row.demoOutage;
  return { settings, status, testSettings, testStatus, providers: [...SETTINGS_PROVIDERS], categories: [...CATEGORIES] as string[], providerCategories: providerCategories(), fields, brandId, demoOutages };
}

/** Checks a provider's values: its keys only (others ignored), strings, booleans, http(s) URLs. */
function acceptedChanges(provider: SettingsProvider, input: Record<string, unknown>): Record<string, unknown> {
  const spec = PROVIDER_SETTINGS[provider];
  const changes: Record<string, unknown> = {};
  for (const key of keysOf(provider)) {
    const value = input[key];
    if (value === undefined) continue;
    const isBoolean = key === "enabled" || spec.booleans.includes(key);
    if (isBoolean) {
      if (typeof value !== "boolean") throw validationError(`Invalid request: settings.${key} must be a boolean`, `settings.${key}`);
    } else {
      if (typeof value !== "string") throw validationError(`Invalid request: settings.${key} must be a string`, `settings.${key}`);
      if (value !== "" && spec.urls.includes(key) && !isHttpUrl(value)) throw validationError(`Invalid request: settings.${key} must be an http(s) URL`, `settings.${key}`);
    }
    changes[key] = typeof value === "string" ? value.trim() : value;
  }
  return changes;
}

/**
 * CONTRACT §36: every address we will call from these settings passes the URL guard (no loopback,
 * private, metadata, documentation… address, after DNS resolution) unless ALLOW_PRIVATE_WEBHOOK_URLS.
 * The hosted store is called at https://<shopDomain> when it has no baseUrl.
 */
async function checkOutgoingSettings(ctx: Ctx, provider: SettingsProvider, changes: Record<string, unknown>): Promise<void> {
  const outgoing: [string, string][] = PROVIDER_SETTINGS[provider].urls.map((key) => [key, changes[key] as string]);
  if (provider === "hosted_store" && typeof changes.shopDomain === "string") outgoing.push(["shopDomain", `https://${changes.shopDomain}`]);
  for (const [key, value] of outgoing) {
    if (typeof value !== "string" || value === "" || value === "https://") continue;
    try {
      await checkOutgoingUrl(value, ctx.config.allowPrivateWebhookUrls);
    } catch (error) {
      if (!(error instanceof UrlRefused)) throw error;
      throw validationError(`Invalid request: settings.${key} is refused: ${error.message}`, `settings.${key}`);
    }
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/**
 * POST /api/admin/settings: merges the given keys into the brand's stored settings (omitted keys
 * stay, an empty string removes a key), seals the secrets, audits the names of what changed (never
 * values of secrets) and drops this process's cached settings so the provider leaves demo mode at once.
 * `mode: "test"` saves the provider's sandbox credentials as the brand's TEST credentials, apart from
 * the live ones (issue 33); without `mode` they are the live ones, as before.
 */
export async function updateSettings({ ctx, input }: { ctx: Ctx; input: UpdateSettingsBody }): Promise<UpdateSettingsReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOfScope(ctx.db, scope);
  if (!isSettingsProvider(input.provider)) throw validationError(`Invalid request: unknown provider ${input.provider}`, "provider");
  const provider = input.provider;
  const livemode = input.mode !== "test";
  const mode = livemode ? ("live" as const) : ("test" as const);
  // Only payment providers charge test objects; marketing lists are no payment and have no sandbox role here.
  if (!livemode && !(PAYMENT_PROVIDERS as readonly string[]).includes(provider)) throw validationError(`Invalid request: ${provider} takes no test (sandbox) credentials: only payment providers do`, "mode");
  const changes = acceptedChanges(provider, input.settings as Record<string, unknown>);
  await checkOutgoingSettings(ctx, provider, changes);
  const keyring = ctx.config.encryptionKeyring;
  const secretKeys = new Set(PROVIDER_SETTINGS[provider].secrets);

  const saved = await withTransaction(ctx.db, async (tx) => {
    const existing = await findProviderSettings(tx, brandId, provider, livemode);
    // Secrets that no longer open are dropped: the caller stores them again.
    const values = existing ? readableValuesOf(existing, keyring).values : {};
    const enabled = typeof changes.enabled === "boolean" ? changes.enabled : (existing?.enabled ?? true);
    const changed: string[] = [];
    const removed: string[] = [];
    for (const [key, value] of Object.entries(changes)) {
      if (key === "enabled") continue;
      if (value === "") {
        if (key in values) removed.push(key);
        delete values[key];
      } else {
        changed.push(key);
        values[key] = value;
      }
    }
    const stored = splitForStorage(provider, values, ctx.config.encryptionKey);
    await upsertProviderSettings(tx, { brandId, provider, enabled, ...stored, updatedAt: new Date(ctx.clock.now()) }, livemode);
    await recordAudit(tx, ctx, {
      action: "settings.update",
      resourceType: "provider_settings",
      resourceId: provider,
      success: true,
      organizationId: scope.organizationId,
      brandId,
      // Key names only: which secrets changed, never their values.
      details: { provider, mode, livemode, enabled, changedKeys: changed, removedKeys: removed, secretKeysChanged: changed.filter((k) => secretKeys.has(k)) },
    });
    return { provider, enabled, ...stored } satisfies StoredSettings;
  });
  ctx.providers.invalidate(brandId);
  return { success: true, provider, mode, status: statusOf(provider, saved, keyring), settings: maskedView(provider, saved, keyring) };
}
