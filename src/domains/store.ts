import { and, asc, eq, ne } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { customDomains } from "../db/schema/index.js";

export type DomainRow = typeof customDomains.$inferSelect;

export async function listBrandDomains(db: Db, brandId: string): Promise<DomainRow[]> {
  return db.select().from(customDomains).where(eq(customDomains.brandId, brandId)).orderBy(asc(customDomains.createdAt), asc(customDomains.domain));
}

/** The row for a host name, whichever brand owns it. */
export async function findDomain(db: Db, domain: string): Promise<DomainRow | undefined> {
  return (await db.select().from(customDomains).where(eq(customDomains.domain, domain)).limit(1))[0];
}

/** The row only when it belongs to `brandId`: another brand's domain is not found. */
export async function findBrandDomain(db: Db, brandId: string, domain: string): Promise<DomainRow | undefined> {
  return (await db.select().from(customDomains).where(and(eq(customDomains.brandId, brandId), eq(customDomains.domain, domain))).limit(1))[0];
}

/** Inserts unless the host name is taken (unique index); null when another request won. */
export async function insertDomain(tx: Db, row: typeof customDomains.$inferInsert): Promise<DomainRow | null> {
  const [inserted] = await tx.insert(customDomains).values(row).onConflictDoNothing({ target: customDomains.domain }).returning();
  return inserted ?? null;
}

/** Clears the brand's other primary domains first: one primary per brand (a partial unique index holds it). */
export async function clearOtherPrimaries(tx: Db, brandId: string, exceptId: string | null): Promise<void> {
  const others = exceptId ? and(eq(customDomains.brandId, brandId), ne(customDomains.id, exceptId)) : eq(customDomains.brandId, brandId);
  await tx.update(customDomains).set({ primary: false }).where(and(others, eq(customDomains.primary, true)));
}

export async function updateDomain(tx: Db, id: string, set: Partial<typeof customDomains.$inferInsert>): Promise<void> {
  await tx.update(customDomains).set(set).where(eq(customDomains.id, id));
}

export async function deleteDomain(tx: Db, id: string): Promise<void> {
  await tx.delete(customDomains).where(eq(customDomains.id, id));
}
