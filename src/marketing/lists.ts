import { and, eq } from "drizzle-orm";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { listMappings } from "../db/schema/index.js";
import { withTransaction } from "../db/transaction.js";
import { assertRole, brandOfScope, type CallerScope } from "../http/auth.js";
import { recordAudit } from "../audit/record.js";
import { AppError } from "../lib/errors.js";
import { PROVIDER_SETTINGS } from "../providers/catalog.js";
import { findProviderSettings, readableValuesOf } from "../providers/settings-store.js";
import { fetchLists, ListsFetchError, type ListSource } from "./sources.js";
import type { ListsReply, UpdateMappingsReply } from "./schemas.js";

export const invalidMappings = (details?: string) => new AppError("INVALID_MAPPINGS", "Invalid mappings", details);
const MAX_MAPPINGS = 1000;
const MAX_NAME = 200;

/** SPEC rule 4: the session's live brand, else 400 `No brand context`. */
async function brandOf(ctx: Ctx, scope: CallerScope): Promise<string> {
  try {
    return await brandOfScope(ctx.db, scope);
  } catch (error) {
    if (error instanceof AppError && error.code === "NO_BRAND") throw new AppError("NO_BRAND", "No brand context");
    throw error;
  }
}

async function storedMappings(db: Db, brandId: string, source: ListSource): Promise<Map<string, string>> {
  const rows = await db
    .select({ listId: listMappings.listId, displayName: listMappings.displayName })
    .from(listMappings)
    .where(and(eq(listMappings.brandId, brandId), eq(listMappings.source, source)));
  return new Map(rows.map((r) => [r.listId, r.displayName]));
}

/** The integration's credentials from the brand's settings (decrypted here only), or which keys are missing. */
async function credentialsOf(ctx: Ctx, brandId: string, source: ListSource): Promise<{ apiKey: string; baseUrl?: string } | { missing: string[]; disabled: boolean }> {
  const stored = await findProviderSettings(ctx.db, brandId, source);
  const values = stored ? readableValuesOf(stored, ctx.config.encryptionKeyring).values : {};
  const missing = PROVIDER_SETTINGS[source].required.filter((key) => typeof values[key] !== "string" || values[key] === "");
  if (missing.length > 0 || !stored?.enabled) return { missing, disabled: stored?.enabled === false };
  return { apiKey: values.apiKey as string, baseUrl: typeof values.baseUrl === "string" && values.baseUrl !== "" ? values.baseUrl : undefined };
}

/** GET /api/admin/<source>/lists: the integration's lists with the brand's display names. */
export async function getLists({ ctx, source }: { ctx: Ctx; source: ListSource }): Promise<ListsReply> {
  const scope = assertRole(ctx, "member");
  const brandId = await brandOf(ctx, scope);
  const credentials = await credentialsOf(ctx, brandId, source);
  if ("missing" in credentials) {
    // SPEC rule 3's body; the status is 400 (docs/marketing.md).
    const error = credentials.missing.length > 0 ? `${source} is not configured: missing ${credentials.missing.join(", ")}` : `${source} is disabled in the settings`;
    throw new AppError("INTEGRATION_NOT_CONFIGURED", error, undefined, { success: false, lists: [], mappings: {} });
  }
  let lists;
  try {
    lists = await fetchLists(source, { ...credentials, timeoutMs: ctx.config.integrationTimeoutMs, allowPrivate: ctx.config.allowPrivateWebhookUrls });
  } catch (error) {
    // Which host answered what (never the key): the answer itself stays SPEC's 500 `Failed to fetch lists`.
    const where = error instanceof ListsFetchError ? { host: error.host, status: error.status } : {};
    ctx.log.warn({ source, ...where, err: error instanceof Error ? error.message : String(error), details: (error as AppError).details }, "marketing lists fetch failed");
    throw error;
  }
  const mappings = await storedMappings(ctx.db, brandId, source);
  return {
    success: true,
    lists: lists.map((l) => ({ listId: l.id, originalName: l.name, displayName: mappings.get(l.id) ?? l.name })),
    mappings: Object.fromEntries(mappings),
    count: lists.length,
  };
}

/** Checks `mappings`: an object of list id to display name (string). */
function mappingsOf(input: unknown): [string, string][] {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw invalidMappings("mappings must be an object of list id to display name");
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length > MAX_MAPPINGS) throw invalidMappings(`at most ${MAX_MAPPINGS} mappings at once`);
  return entries.map(([listId, name]) => {
    if (listId === "" || listId.length > MAX_NAME) throw invalidMappings("list ids are 1 to 200 characters");
    if (typeof name !== "string" || name.length > MAX_NAME) throw invalidMappings(`the display name of ${listId.slice(0, 50)} must be text of at most ${MAX_NAME} characters`);
    return [listId, name.trim()];
  });
}

/**
 * PUT /api/admin/<source>/lists: stores the display names; an empty one removes the custom name
 * (SPEC rule 2). `updated` counts rows that changed: added, renamed or removed.
 */
export async function updateMappings({ ctx, source, input }: { ctx: Ctx; source: ListSource; input: { mappings?: unknown } }): Promise<UpdateMappingsReply> {
  const scope = assertRole(ctx, "admin");
  const brandId = await brandOf(ctx, scope);
  const entries = mappingsOf(input.mappings);
  const now = new Date(ctx.clock.now());
  const updated = await withTransaction(ctx.db, async (tx) => {
    const existing = await storedMappings(tx, brandId, source);
    const changed: string[] = [];
    const removed: string[] = [];
    for (const [listId, displayName] of entries) {
      const current = existing.get(listId);
      if (displayName === "") {
        if (current === undefined) continue;
        await tx.delete(listMappings).where(and(eq(listMappings.brandId, brandId), eq(listMappings.source, source), eq(listMappings.listId, listId)));
        removed.push(listId);
      } else if (current !== displayName) {
        await tx
          .insert(listMappings)
          .values({ brandId, source, listId, displayName, updatedAt: now })
          .onConflictDoUpdate({ target: [listMappings.brandId, listMappings.source, listMappings.listId], set: { displayName, updatedAt: now } });
        changed.push(listId);
      }
    }
    const count = changed.length + removed.length;
    if (count > 0) {
      await recordAudit(tx, ctx, {
        action: "list_mapping.update",
        resourceType: "list_mapping",
        resourceId: source,
        success: true,
        organizationId: scope.organizationId,
        brandId,
        details: { source, changedListIds: changed.slice(0, 100), removedListIds: removed.slice(0, 100), updated: count },
      });
    }
    return count;
  });
  return { success: true, updated };
}
