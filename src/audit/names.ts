import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { apiKeys, brands, commissions, memberships, orders, organizations, paymentLinks, salespeople, users, webhookEndpoints } from "../db/schema/index.js";

/** What the audit page shows instead of ids: who acted and what they acted on, by name. */
export interface AuditNames {
  actorName(row: { actorType: string; actorId: string | null }): string | null;
  resourceName(row: { resourceType: string; resourceId: string | null }): string | null;
}

/** Resource types whose id already is the name a merchant knows (a domain, a provider, a kid …). */
const NAMED_BY_ID = new Set(["domain", "provider_settings", "list_mapping", "signing_key", "routing_rules"]);

/** Ids of stored payment links start so (src/admin/payment-links.ts). */
const PAYMENT_LINK_ID_PREFIX = "plink_";

type Row = { actorType: string; actorId: string | null; resourceType: string; resourceId: string | null };
type Named = { id: string; name: string };

/** The ids a lookup of `type` must name: resources of that type, and actors of `actorType`. */
function idsOf(rows: Row[], type: string, actorType?: string): string[] {
  const ids = new Set<string>();
  for (const r of rows) {
    if (r.resourceType === type && r.resourceId) ids.add(r.resourceId);
    if (actorType && r.actorType === actorType && r.actorId) ids.add(r.actorId);
  }
  return [...ids];
}

/**
 * The names of one page's actors and resources, looked up in a few queries (one per kind present).
 * Only things of the organization are named: a user must still be a member of it (a removed user,
 * like another organization's, keeps its id and a null name), and every other lookup is filtered by
 * the organization, so another organization's names never leak.
 */
export async function auditNamesOf(db: Db, organizationId: string, rows: Row[]): Promise<AuditNames> {
  const lookups: { type: string; actorType?: string; find: (ids: string[]) => Promise<Named[]> }[] = [
    {
      type: "user",
      actorType: "user",
      find: async (ids) =>
        (
          await db
            .select({ id: users.id, name: users.name, email: users.email })
            .from(users)
            .innerJoin(memberships, and(eq(memberships.userId, users.id), eq(memberships.organizationId, organizationId)))
            .where(inArray(users.id, ids))
        ).map((u) => ({ id: u.id, name: u.name ? `${u.name} (${u.email})` : u.email })),
    },
    // Salesperson portal logins are recorded with actorType user and the salesperson's id (docs/admin.md).
    { type: "salesperson", actorType: "user", find: (ids) => db.select({ id: salespeople.id, name: salespeople.name }).from(salespeople).where(and(eq(salespeople.organizationId, organizationId), inArray(salespeople.id, ids))) },
    {
      type: "api_key",
      actorType: "api",
      find: (ids) => db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(and(eq(apiKeys.organizationId, organizationId), inArray(apiKeys.id, ids))),
    },
    { type: "brand", find: (ids) => db.select({ id: brands.id, name: brands.name }).from(brands).where(and(eq(brands.organizationId, organizationId), inArray(brands.id, ids))) },
    { type: "organization", find: (ids) => db.select({ id: organizations.id, name: organizations.name }).from(organizations).where(and(eq(organizations.id, organizationId), inArray(organizations.id, ids))) },
    {
      type: "webhook_endpoint",
      find: async (ids) =>
        (
          await db
            .select({ id: webhookEndpoints.id, name: webhookEndpoints.name, url: webhookEndpoints.url })
            .from(webhookEndpoints)
            .where(and(eq(webhookEndpoints.organizationId, organizationId), inArray(webhookEndpoints.id, ids)))
        ).map((e) => ({ id: e.id, name: e.name || e.url })),
    },
    {
      type: "commission",
      find: async (ids) =>
        (await db.select({ id: commissions.id, orderId: commissions.orderId }).from(commissions).where(and(eq(commissions.organizationId, organizationId), inArray(commissions.id, ids)))).map((c) => ({
          id: c.id,
          name: `commission of order ${c.orderId}`,
        })),
    },
    {
      type: "order",
      find: async (ids) =>
        (
          await db
            .select({ id: orders.id, orderId: orders.orderId })
            .from(orders)
            .innerJoin(brands, eq(brands.id, orders.brandId))
            .where(and(eq(brands.organizationId, organizationId), inArray(orders.id, ids)))
        ).map((o) => ({ id: o.id, name: `order ${o.orderId}` })),
    },
    // Lasting payment links (`plink_…`); a quick link's record carries its order id instead.
    { type: "checkout_link", find: (ids) => db.select({ id: paymentLinks.id, name: paymentLinks.productName }).from(paymentLinks).where(and(eq(paymentLinks.organizationId, organizationId), inArray(paymentLinks.id, ids))) },
  ];
  // One after another: a page costs a few short reads, never several pool connections at once.
  const names = new Map<string, Map<string, string>>();
  for (const { type, actorType, find } of lookups) {
    const ids = idsOf(rows, type, actorType);
    if (ids.length > 0) names.set(type, new Map((await find(ids)).map((r) => [r.id, r.name])));
  }
  return {
    actorName: ({ actorType, actorId }) => {
      if (!actorId) return null;
      if (actorType === "user") return names.get("user")?.get(actorId) ?? names.get("salesperson")?.get(actorId) ?? null;
      if (actorType === "api") {
        const key = names.get("api_key")?.get(actorId);
        return key ? `API key ${key}` : null;
      }
      return null;
    },
    resourceName: ({ resourceType, resourceId }) => {
      if (!resourceId) return null;
      if (NAMED_BY_ID.has(resourceType)) return resourceId;
      const name = names.get(resourceType)?.get(resourceId);
      if (name) return name;
      // A quick (one-hour) link is named by its order id, which is its resource id.
      return resourceType === "checkout_link" && !resourceId.startsWith(PAYMENT_LINK_ID_PREFIX) ? resourceId : null;
    },
  };
}
