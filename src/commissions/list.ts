import { and, count, desc, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import type { Ctx } from "../ctx.js";
import { commissionAdjustments, commissions } from "../db/schema/index.js";
import { assertRole, type CallerScope } from "../http/auth.js";
import { shownLivemode } from "../payments/mode.js";
import { dateParam } from "../lib/dates.js";
import { COMMISSION_STATUSES } from "./transitions.js";
import { COMMISSION_PAGE_SIZE_MAX, type ClawbackLine, type CommissionListQuery, type CommissionListReply, type CommissionReport, type Totals } from "./schemas.js";

const sumOf = (column: typeof commissions.commissionAmountCents | typeof commissions.orderAmountCents) => sql<number>`coalesce(sum(${column}), 0)`.mapWith(Number);

/**
 * `GET /api/admin/commissions`: the commissions of the session's brand (and organization), newest
 * first. A session without a brand sees none. `report` totals cover every filtered commission, not the page.
 */
export async function listCommissions({ ctx, input }: { ctx: Ctx; input: CommissionListQuery }): Promise<CommissionListReply> {
  const scope = assertRole(ctx, "member");
  const pageSize = Math.min(input.pageSize, COMMISSION_PAGE_SIZE_MAX);
  // One mode (CONTRACT §39): the one asked for, else the brand's (no brand: nothing is shown anyway).
  const livemode = input.livemode ?? (scope.brandId ? await shownLivemode(ctx, scope.brandId) : false);
  const where = and(...conditionsOf(scope, input), eq(commissions.livemode, livemode));
  const [{ total }] = await ctx.db.select({ total: count() }).from(commissions).where(where);
  const rows = await ctx.db
    .select()
    .from(commissions)
    .where(where)
    .orderBy(desc(commissions.createdAt), desc(commissions.id))
    .limit(pageSize)
    .offset((input.page - 1) * pageSize);

  const reply: CommissionListReply = {
    commissions: rows.map((row) => ({
      id: row.id,
      orderId: row.orderId,
      salespersonId: row.salespersonId,
      salespersonName: row.salespersonName,
      orderAmount: row.orderAmountCents,
      commissionAmount: row.commissionAmountCents,
      currency: row.currency,
      commissionRate: row.commissionRate,
      commissionType: row.commissionType,
      status: row.status,
      notes: row.notes,
      createdAt: row.createdAt.getTime(),
    })),
    pagination: { page: input.page, pageSize, total, totalPages: Math.ceil(total / pageSize) },
    brandId: scope.brandId,
    livemode,
  };
  if (input.report) reply.report = await reportOf(ctx, where);
  return reply;
}

async function reportOf(ctx: Ctx, where: SQL | undefined): Promise<CommissionReport> {
  const totalsColumns = { count: count(), commissionAmount: sumOf(commissions.commissionAmountCents), orderAmount: sumOf(commissions.orderAmountCents) };
  const byStatusRows = await ctx.db
    .select({ status: commissions.status, currency: commissions.currency, ...totalsColumns })
    .from(commissions)
    .where(where)
    .groupBy(commissions.status, commissions.currency)
    .orderBy(commissions.currency);
  const bySalesperson = await ctx.db
    .select({ salespersonId: commissions.salespersonId, salespersonName: sql<string | null>`max(${commissions.salespersonName})`, currency: commissions.currency, ...totalsColumns })
    .from(commissions)
    .where(where)
    .groupBy(commissions.salespersonId, commissions.currency)
    .orderBy(commissions.salespersonId, commissions.currency);
  const totals = zeroTotals();
  const byStatus = zeroByStatus();
  const byCurrency: CommissionReport["byCurrency"] = [];
  for (const row of byStatusRows) {
    let entry = byCurrency.find((c) => c.currency === row.currency);
    if (!entry) byCurrency.push((entry = { currency: row.currency, totals: zeroTotals(), byStatus: zeroByStatus() }));
    for (const sum of [totals, byStatus[row.status], entry.totals, entry.byStatus[row.status]]) addTo(sum, row);
  }
  return { totals, byStatus, byCurrency, clawbacks: await clawbacksOf(ctx, where), bySalesperson };
}

const CLAWBACK_LINES = 100;

/** The clawback lines of the filtered commissions: sums per currency and the newest lines. */
async function clawbacksOf(ctx: Ctx, where: SQL | undefined): Promise<CommissionReport["clawbacks"]> {
  const a = commissionAdjustments;
  const clawbacksOfFiltered = and(eq(a.kind, "clawback"), where);
  const byCurrency = await ctx.db
    .select({
      currency: a.currency,
      count: count(),
      amount: sql<number>`coalesce(sum(${a.amountCents}), 0)`.mapWith(Number),
      open: sql<number>`coalesce(sum(${a.amountCents}) filter (where ${a.nettedAt} is null), 0)`.mapWith(Number),
    })
    .from(a)
    .innerJoin(commissions, eq(commissions.id, a.commissionId))
    .where(clawbacksOfFiltered)
    .groupBy(a.currency)
    .orderBy(a.currency);
  const lines = await ctx.db
    .select({ line: a })
    .from(a)
    .innerJoin(commissions, eq(commissions.id, a.commissionId))
    .where(clawbacksOfFiltered)
    .orderBy(desc(a.createdAt), desc(a.id))
    .limit(CLAWBACK_LINES);
  return { byCurrency, lines: lines.map(({ line }) => clawbackLineOf(line)) };
}

export const clawbackLineOf = (row: typeof commissionAdjustments.$inferSelect): ClawbackLine => ({
  id: row.id,
  commissionId: row.commissionId,
  orderId: row.orderId,
  salespersonId: row.salespersonId,
  amount: row.amountCents,
  currency: row.currency,
  refundId: row.refundId,
  disputeId: row.disputeId,
  createdAt: row.createdAt.getTime(),
  nettedAt: row.nettedAt?.getTime() ?? null,
});

const zeroTotals = (): Totals => ({ count: 0, commissionAmount: 0, orderAmount: 0 });
const zeroByStatus = () => Object.fromEntries(COMMISSION_STATUSES.map((s) => [s, zeroTotals()])) as CommissionReport["byStatus"];
function addTo(sum: Totals, row: Totals): void {
  sum.count += row.count;
  sum.commissionAmount += row.commissionAmount;
  sum.orderAmount += row.orderAmount;
}

function conditionsOf(scope: CallerScope, input: CommissionListQuery): SQL[] {
  // Tenant from the caller only (src/http/auth.ts); no brand selected: nothing.
  const conditions: SQL[] = [eq(commissions.organizationId, scope.organizationId), scope.brandId ? eq(commissions.brandId, scope.brandId) : sql`false`];
  if (input.status !== undefined) conditions.push(eq(commissions.status, input.status));
  if (input.salespersonId !== undefined) conditions.push(eq(commissions.salespersonId, input.salespersonId));
  const startDate = dateParam(input.startDate, "startDate");
  const endDate = dateParam(input.endDate, "endDate");
  if (startDate) conditions.push(gte(commissions.createdAt, startDate));
  if (endDate) conditions.push(lte(commissions.createdAt, endDate));
  return conditions;
}
