import { and, eq, sql } from "drizzle-orm";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { isUniqueViolation } from "../db/errors.js";
import { brandAccess, brands, DEFAULT_BRAND_ID, DEFAULT_ORGANIZATION_ID, memberships, organizations, users } from "../db/schema/index.js";
import { newId, randomToken } from "../lib/ids.js";
import { emailAlreadyExists } from "./errors.js";

export interface NewAccount {
  email: string;
  name: string;
  passwordHash: string | null;
  orgName: string;
}

export interface ProvisionedAccount {
  userId: string;
  organizationId: string;
  brandId: string;
  adoptedDefault: boolean;
}

export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48);
  return slug || "org";
}

async function uniqueOrgSlug(tx: Db, name: string, exceptId?: string): Promise<string> {
  const base = slugify(name);
  for (let i = 0; i < 5; i++) {
    const candidate = i === 0 ? base : `${base}-${randomToken(3).toLowerCase().replace(/[^a-z0-9]/g, "x")}`;
    const [taken] = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.slug, candidate));
    if (!taken || taken.id === exceptId) return candidate;
  }
  return `${base}-${newId("x").slice(2, 12).toLowerCase()}`;
}

/**
 * The customer record at the intent gateway (SPEC "User authentication" rule 1). The intent
 * gateway's real adapter is not wired for identity yet, so this is the demo id form.
 */
function customerRecordId(): string {
  return `cus_demo_${randomToken(12)}`;
}

/**
 * Creates the user, its organization and default brand: the registering user is `owner` of the
 * organization and `admin` of the brand (CONTRACT §11). The first user ever adopts the default
 * organization and brand created at first start, both renamed to orgName (CONTRACT §27: buyers see
 * the brand's name on the checkout, never "Default brand"); the default
 * organization row is locked so two concurrent first registrations cannot both adopt it.
 * Must run inside a transaction.
 */
export async function provisionAccount(tx: Db, ctx: Pick<Ctx, "clock">, input: NewAccount): Promise<ProvisionedAccount> {
  const now = new Date(ctx.clock.now());
  const userId = newId("usr");
  // A savepoint, so a duplicate email leaves the outer transaction usable for the error path.
  try {
    await tx.transaction(async (sp) => {
      await sp.insert(users).values({ id: userId, email: input.email, name: input.name, passwordHash: input.passwordHash, customerId: customerRecordId(), createdAt: now, updatedAt: now });
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailAlreadyExists();
    throw error;
  }

  await tx.execute(sql`select id from organizations where id = ${DEFAULT_ORGANIZATION_ID} for update`);
  const [defaultOrg] = await tx.select({ id: organizations.id }).from(organizations).where(and(eq(organizations.id, DEFAULT_ORGANIZATION_ID), eq(organizations.isDefault, true)));
  const [owned] = defaultOrg ? await tx.select({ userId: memberships.userId }).from(memberships).where(eq(memberships.organizationId, DEFAULT_ORGANIZATION_ID)).limit(1) : [undefined];
  const [defaultBrand] = await tx.select({ id: brands.id }).from(brands).where(eq(brands.id, DEFAULT_BRAND_ID));

  let organizationId: string;
  let brandId: string;
  const adoptedDefault = !!defaultOrg && !owned && !!defaultBrand;
  if (adoptedDefault) {
    organizationId = DEFAULT_ORGANIZATION_ID;
    brandId = DEFAULT_BRAND_ID;
    await tx
      .update(organizations)
      .set({ name: input.orgName, slug: await uniqueOrgSlug(tx, input.orgName, DEFAULT_ORGANIZATION_ID) })
      .where(eq(organizations.id, organizationId));
    await tx.update(brands).set({ name: input.orgName }).where(eq(brands.id, brandId));
  } else {
    organizationId = newId("org");
    brandId = newId("brand");
    // Two concurrent registrations may pick the same free slug: the loser retries with a suffix.
    for (let attempt = 0; ; attempt++) {
      const slug = attempt === 0 ? await uniqueOrgSlug(tx, input.orgName) : `${slugify(input.orgName)}-${randomToken(4).toLowerCase().replace(/[^a-z0-9]/g, "x")}`;
      try {
        await tx.transaction((sp) => sp.insert(organizations).values({ id: organizationId, name: input.orgName, slug, createdAt: now }));
        break;
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= 3) throw error;
      }
    }
    await tx.insert(brands).values({ id: brandId, organizationId, name: input.orgName, slug: "default", createdAt: now });
  }
  await tx.insert(memberships).values({ userId, organizationId, role: "owner", createdAt: now });
  await tx.insert(brandAccess).values({ userId, brandId, role: "admin", createdAt: now });
  return { userId, organizationId, brandId, adoptedDefault };
}
