import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { approvalAnalytics } from "./analytics.js";
import { ApprovalsQuery, ApprovalsReply } from "./analytics-schemas.js";

export function registerAnalyticsRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/analytics/approvals",
    {
      schema: {
        tags: ["Administration: orchestration"],
        summary: "Approval analytics of the session's brand: approval rate per provider, decline code, card brand, BIN country, amount band and day; revenue recovered by cascades; net of refunds (any role)",
        querystring: ApprovalsQuery,
        response: { 200: ApprovalsReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => approvalAnalytics({ ctx: callerCtx(deps, request), input: request.query }),
  );
}
