import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { bulkUpdateCommissions } from "./bulk-update.js";
import { listCommissions } from "./list.js";
import { CommissionBulkBody, CommissionBulkReply, CommissionListQuery, CommissionListReply } from "./schemas.js";

const TAGS = ["Administration: commissions"];

export function registerCommissionRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/commissions",
    {
      schema: {
        tags: TAGS,
        summary: "Commissions of the session's brand, with filters, pagination and an optional report (any role)",
        querystring: CommissionListQuery,
        response: { 200: CommissionListReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      return listCommissions({ ctx: callerCtx(deps, request), input: request.query });
    },
  );

  app.post(
    "/api/admin/commissions",
    {
      schema: {
        tags: TAGS,
        summary: "Bulk approve, cancel, dispute or mark paid (admin or owner); refused moves are reported per id",
        body: CommissionBulkBody,
        response: { 200: CommissionBulkReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      return bulkUpdateCommissions({ ctx: callerCtx(deps, request), input: request.body });
    },
  );
}
