import type { Deps } from "../../ctx.js";
import { callerCtx } from "../../http/auth.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { getDashboard } from "./dashboard.js";
import { DashboardQuery, DashboardReply } from "./schemas.js";

export function registerDashboardRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/dashboard",
    {
      schema: {
        tags: ["Administration: dashboard"],
        summary: "Not in SPEC: the session brand's orders, revenue per currency and day, and upsell take rate per offer (any role)",
        querystring: DashboardQuery,
        response: { 200: DashboardReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => getDashboard({ ctx: callerCtx(deps, request), input: request.query }),
  );
}
