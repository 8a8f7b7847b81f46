import { and, asc, eq, isNull, lt, or } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { apiKeys, brandSigningKeys } from "../db/schema/index.js";

// The merchant-credentials feature's queries. Each takes a db handle (client or transaction).

export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type SigningKeyRow = typeof brandSigningKeys.$inferSelect;

/** How often `last_used_at` may be written per key: one UPDATE a minute, not one per request. */
export const LAST_USED_GRANULARITY_MS = 60_000;

export async function insertApiKey(db: Db, row: typeof apiKeys.$inferInsert): Promise<void> {
  await db.insert(apiKeys).values(row);
}

/** The key with this secret hash (unique index), revoked or not: read on every request, never cached. */
export async function findApiKeyByHash(db: Db, keyHash: string): Promise<ApiKeyRow | null> {
  const [row] = await db.select().from(apiKeys).where(eq(apiKeys.keyHash, keyHash)).limit(1);
  return row ?? null;
}

export async function listApiKeysOfBrand(db: Db, organizationId: string, brandId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.organizationId, organizationId), eq(apiKeys.brandId, brandId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
}

/** Revokes a live key of this brand; null when there is none (unknown, revoked, another tenant's). */
export async function revokeApiKey(db: Db, where: { id: string; organizationId: string; brandId: string }, at: Date): Promise<ApiKeyRow | null> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, where.id), eq(apiKeys.organizationId, where.organizationId), eq(apiKeys.brandId, where.brandId), isNull(apiKeys.revokedAt)))
    .returning();
  return row ?? null;
}

/** Conditional: writes only when the stored value is older than a minute, so concurrent requests write once. */
export async function touchApiKey(db: Db, id: string, now: Date): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(now.getTime() - LAST_USED_GRANULARITY_MS)))));
}

export async function insertSigningKey(db: Db, row: typeof brandSigningKeys.$inferInsert): Promise<void> {
  await db.insert(brandSigningKeys).values(row);
}

/** A live signing key by its kid: read on every token that names it, never cached, so a retirement holds at once. */
export async function findLiveSigningKey(db: Db, kid: string): Promise<SigningKeyRow | null> {
  const [row] = await db
    .select()
    .from(brandSigningKeys)
    .where(and(eq(brandSigningKeys.kid, kid), isNull(brandSigningKeys.retiredAt)))
    .limit(1);
  return row ?? null;
}

export async function listSigningKeysOfBrand(db: Db, organizationId: string, brandId: string): Promise<SigningKeyRow[]> {
  return db
    .select()
    .from(brandSigningKeys)
    .where(and(eq(brandSigningKeys.organizationId, organizationId), eq(brandSigningKeys.brandId, brandId), isNull(brandSigningKeys.retiredAt)))
    .orderBy(asc(brandSigningKeys.createdAt), asc(brandSigningKeys.kid));
}

export async function retireSigningKey(db: Db, where: { kid: string; organizationId: string; brandId: string }, at: Date): Promise<SigningKeyRow | null> {
  const [row] = await db
    .update(brandSigningKeys)
    .set({ retiredAt: at })
    .where(
      and(
        eq(brandSigningKeys.kid, where.kid),
        eq(brandSigningKeys.organizationId, where.organizationId),
        eq(brandSigningKeys.brandId, where.brandId),
        isNull(brandSigningKeys.retiredAt),
      ),
    )
    .returning();
  return row ?? null;
}

export async function touchSigningKey(db: Db, kid: string, now: Date): Promise<void> {
  await db
    .update(brandSigningKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(brandSigningKeys.kid, kid), or(isNull(brandSigningKeys.lastUsedAt), lt(brandSigningKeys.lastUsedAt, new Date(now.getTime() - LAST_USED_GRANULARITY_MS)))));
}
