import type { Deps } from "../ctx.js";
import { requireAdmin, ROLES } from "../admin/access.js";
import { ctxOf } from "../http/ctx.js";
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
      const scope = requireAdmin(request, ROLES.adminOrOwner);
      return listAuditLogs({ ctx: ctxOf(deps, request, scope.actor), scope, input: request.query });
    },
  );
}
