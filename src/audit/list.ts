import { and, count, desc, eq, gte, lte, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Ctx } from "../ctx.js";
import type { Db } from "../db/client.js";
import { auditLogs } from "../db/schema/index.js";
import { assertRole, type CallerScope } from "../http/auth.js";
import { dateParam } from "../lib/dates.js";
import { auditNamesOf } from "./names.js";
import { AUDIT_PAGE_SIZE_MAX, type AuditLogListReply, type AuditLogQuery } from "./schemas.js";

/**
 * `GET /api/admin/audit-logs`. Always limited to the session's organization: an `organizationId`
 * filter naming another organization gives an empty page, never its records. Newest first; a page
 * past the end is empty with the real totals.
 */
export async function listAuditLogs({ ctx, input }: { ctx: Ctx; input: AuditLogQuery }): Promise<AuditLogListReply> {
  const scope = assertRole(ctx, "admin");
  const page = input.page;
  const limit = Math.min(input.limit, AUDIT_PAGE_SIZE_MAX);
  const queries = auditLogQueries(ctx.db, scope, input);
  const [{ total: counted }] = await queries.total;
  // Counting every match costs time in proportion to the matches: past EXACT_COUNT_LIMIT the total is
  // the planner's estimate (docs/admin.md), so a listing over millions of records stays fast.
  const totalExact = counted <= EXACT_COUNT_LIMIT;
  const total = totalExact ? counted : Math.max(counted, await estimateRows(ctx.db, queries.matches));
  const rows = await queries.page;
  const names = await auditNamesOf(ctx.db, scope.organizationId, rows);

  const reply: AuditLogListReply = {
    logs: rows.map((row) => ({
      id: row.id,
      actorType: row.actorType,
      actorId: row.actorId,
      actorName: names.actorName(row),
      action: row.action,
      resourceType: row.resourceType,
      resourceId: row.resourceId,
      resourceName: names.resourceName(row),
      success: row.success,
      createdAt: row.createdAt.getTime(),
      organizationId: row.organizationId,
      brandId: row.brandId,
      ipAddress: row.ipAddress,
      userAgent: row.userAgent,
      details: row.details ?? null,
    })),
    pagination: { page, limit, total, totalPages: Math.ceil(total / limit), totalExact },
  };
  if (input.includeStats) {
    const byAction = await queries.stats;
    // Exact, even when the page's total is an estimate: the stats count every match.
    const actions = byAction.reduce((sum, row) => sum + row.actions, 0);
    const succeeded = byAction.reduce((sum, row) => sum + row.succeeded, 0);
    reply.stats = {
      totalActions: actions,
      successRate: actions === 0 ? 0 : Math.round((succeeded / actions) * 10_000) / 100,
      actionsByType: Object.fromEntries(byAction.map((row) => [row.action, row.actions])),
    };
  }
  return reply;
}

/** Up to this many matches the total is counted exactly; beyond it, estimated. */
export const EXACT_COUNT_LIMIT = 1_000;

/** The listing's statements, unexecuted: the plan test EXPLAINs exactly these. */
export function auditLogQueries(db: Db, scope: Pick<CallerScope, "organizationId">, input: AuditLogQuery) {
  const limit = Math.min(input.limit, AUDIT_PAGE_SIZE_MAX);
  const where = and(...conditionsOf(scope, input));
  const matches = db.select({ one: sql`1` }).from(auditLogs).where(where);
  return {
    matches,
    /** The matches counted, but never more than one past EXACT_COUNT_LIMIT. */
    total: db.select({ total: count() }).from(matches.limit(EXACT_COUNT_LIMIT + 1).as("capped")),
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

/** The planner's estimate of how many rows a query returns (EXPLAIN, nothing executed). */
async function estimateRows(db: Db, query: SQLWrapper): Promise<number> {
  const result = await db.execute(sql`explain (format json) ${query}`);
  const [row] = result.rows as { "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] | string }[];
  const plan = typeof row!["QUERY PLAN"] === "string" ? JSON.parse(row!["QUERY PLAN"]) : row!["QUERY PLAN"];
  return Math.round(plan[0].Plan["Plan Rows"]);
}

function conditionsOf(scope: Pick<CallerScope, "organizationId">, input: AuditLogQuery): SQL[] {
  // The tenant condition comes from the caller, never from the query (src/http/auth.ts).
  const conditions: SQL[] = [eq(auditLogs.organizationId, scope.organizationId)];
  if (input.organizationId !== undefined && input.organizationId !== scope.organizationId) conditions.push(sql`false`);
  if (input.brandId !== undefined) conditions.push(eq(auditLogs.brandId, input.brandId));
  if (input.actorType !== undefined) conditions.push(eq(auditLogs.actorType, input.actorType));
  if (input.action !== undefined) conditions.push(eq(auditLogs.action, input.action));
  if (input.resourceType !== undefined) conditions.push(eq(auditLogs.resourceType, input.resourceType));
  if (input.success !== undefined) conditions.push(eq(auditLogs.success, input.success));
  const startDate = dateParam(input.startDate, "startDate");
  const endDate = dateParam(input.endDate, "endDate");
  if (startDate) conditions.push(gte(auditLogs.createdAt, startDate));
  if (endDate) conditions.push(lte(auditLogs.createdAt, endDate));
  const search = input.search?.trim();
  if (search) conditions.push(sql`${auditLogs.searchVector} @@ websearch_to_tsquery('simple', ${search})`);
  return conditions;
}
