import { and, count, desc, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import type { AdminScope } from "../admin/access.js";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { auditLogs } from "../db/schema/index.js";
import { AUDIT_PAGE_SIZE_MAX, type AuditLogListReply, type AuditLogQuery } from "./schemas.js";

/**
 * `GET /api/admin/audit-logs`. Always limited to the session's organization: an `organizationId`
 * filter naming another organization gives an empty page, never its records. Newest first; a page
 * past the end is empty with the real totals.
 */
export async function listAuditLogs({ ctx, scope, input }: { ctx: Ctx; scope: AdminScope; input: AuditLogQuery }): Promise<AuditLogListReply> {
  const page = input.page;
  const limit = Math.min(input.limit, AUDIT_PAGE_SIZE_MAX);
  const queries = auditLogQueries(ctx.db, scope, input);
  const [{ total }] = await queries.total;
  const rows = await queries.page;

  const reply: AuditLogListReply = {
    logs: rows.map((row) => ({
      id: row.id,
      actorType: row.actorType,
      actorId: row.actorId,
      action: row.action,
      resourceType: row.resourceType,
      resourceId: row.resourceId,
      success: row.success,
      createdAt: row.createdAt.getTime(),
      organizationId: row.organizationId,
      brandId: row.brandId,
      ipAddress: row.ipAddress,
      userAgent: row.userAgent,
      details: row.details ?? null,
    })),
    pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
  };
  if (input.includeStats) {
    const byAction = await queries.stats;
    const succeeded = byAction.reduce((sum, row) => sum + row.succeeded, 0);
    reply.stats = {
      totalActions: total,
      successRate: total === 0 ? 0 : Math.round((succeeded / total) * 10_000) / 100,
      actionsByType: Object.fromEntries(byAction.map((row) => [row.action, row.actions])),
    };
  }
  return reply;
}

/** The listing's three statements, unexecuted: the plan test EXPLAINs exactly these. */
export function auditLogQueries(db: Db, scope: Pick<AdminScope, "organizationId">, input: AuditLogQuery) {
  const limit = Math.min(input.limit, AUDIT_PAGE_SIZE_MAX);
  const where = and(...conditionsOf(scope, input));
  return {
    total: db.select({ total: count() }).from(auditLogs).where(where),
    page: db
      .select()
      .from(auditLogs)
      .where(where)
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
      .limit(limit)
      .offset((input.page - 1) * limit),
    stats: db
      .select({ action: auditLogs.action, actions: count(), succeeded: sql<number>`count(*) filter (where ${auditLogs.success})`.mapWith(Number) })
      .from(auditLogs)
      .where(where)
      .groupBy(auditLogs.action),
  };
}

function conditionsOf(scope: Pick<AdminScope, "organizationId">, input: AuditLogQuery): SQL[] {
  // The tenant condition comes from the session, never from the query (src/admin/access.ts).
  const conditions: SQL[] = [eq(auditLogs.organizationId, scope.organizationId)];
  if (input.organizationId !== undefined && input.organizationId !== scope.organizationId) conditions.push(sql`false`);
  if (input.brandId !== undefined) conditions.push(eq(auditLogs.brandId, input.brandId));
  if (input.actorType !== undefined) conditions.push(eq(auditLogs.actorType, input.actorType));
  if (input.action !== undefined) conditions.push(eq(auditLogs.action, input.action));
  if (input.resourceType !== undefined) conditions.push(eq(auditLogs.resourceType, input.resourceType));
  if (input.success !== undefined) conditions.push(eq(auditLogs.success, input.success));
  if (input.startDate !== undefined) conditions.push(gte(auditLogs.createdAt, new Date(input.startDate)));
  if (input.endDate !== undefined) conditions.push(lte(auditLogs.createdAt, new Date(input.endDate)));
  const search = input.search?.trim();
  if (search) conditions.push(sql`${auditLogs.searchVector} @@ websearch_to_tsquery('simple', ${search})`);
  return conditions;
}
