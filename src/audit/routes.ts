import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { listAuditLogs } from "./list.js";
import { AuditLogListReply, AuditLogQuery } from "./schemas.js";

export function registerAuditRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/audit-logs",
    {
      schema: {
        tags: ["Administration: audit logs"],
        summary: "The organization's audit trail: filters, full-text search, pagination, optional stats (admin or owner)",
        querystring: AuditLogQuery,
        response: { 200: AuditLogListReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      return listAuditLogs({ ctx: callerCtx(deps, request), input: request.query });
    },
  );
}
