import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { brands, customDomains, DEFAULT_BRAND_ID } from "../db/schema/index.js";
import { systemClock, type Clock } from "../lib/clock.js";

/** How long a host's brand is remembered; another process sees a verified or removed domain after this. */
export const HOST_CACHE_MS = 30_000;
const MAX_ENTRIES = 10_000;

const caches = new WeakMap<object, Map<string, { brandId: string; at: number }>>();

/** `Pay.Example.com:443.` → `pay.example.com`. */
export function normaliseHost(host: string | undefined): string {
  if (!host) return "";
  const withoutPort = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.replace(/:\d+$/, "");
  return withoutPort.trim().toLowerCase().replace(/\.$/, "");
}

/**
 * The brand a request's Host serves: the brand of a verified custom domain (of a live brand), else
 * the default brand. Cached per database handle for HOST_CACHE_MS, so pages do not query per request.
 */
export async function brandForHost(db: Db, host: string | undefined, clock: Clock = systemClock): Promise<string> {
  const name = normaliseHost(host);
  if (!name) return DEFAULT_BRAND_ID;
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  const now = clock.now();
  const hit = cache.get(name);
  if (hit && now - hit.at >= 0 && now - hit.at < HOST_CACHE_MS) return hit.brandId;
  const [row] = await db
    .select({ brandId: customDomains.brandId })
    .from(customDomains)
    .innerJoin(brands, eq(brands.id, customDomains.brandId))
    .where(and(eq(customDomains.domain, name), eq(customDomains.verified, true), isNull(brands.deletedAt)))
    .limit(1);
  const brandId = row?.brandId ?? DEFAULT_BRAND_ID;
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(name, { brandId, at: now });
  return brandId;
}

/** Forgets a host in this process's cache (after it was verified or removed here). */
export function forgetHost(db: Db, host: string): void {
  caches.get(db)?.delete(normaliseHost(host));
}
