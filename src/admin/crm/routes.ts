import type { Deps } from "../../ctx.js";
import { callerCtx } from "../../http/auth.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { retryCrm, testCrm } from "./crm.js";
import { CrmRetryBody, CrmRetryReply, TestCrmBody, TestCrmReply } from "./schemas.js";

const tags = ["Administration: utilities"];

export function registerCrmAdminRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/admin/test-crm",
    { schema: { tags, summary: "Check the session brand's CRM connection (demo answers demo: true)", body: TestCrmBody, response: { 200: TestCrmReply, ...errorResponses(400, 401, 403, 502, 503) } } },
    async (request) => testCrm({ ctx: callerCtx(deps, request), input: request.body }),
  );

  app.post(
    "/api/admin/crm-retry",
    { schema: { tags, summary: "Record again in its CRM an order whose CRM recording failed or was skipped (idempotent)", body: CrmRetryBody, response: { 200: CrmRetryReply, ...errorResponses(400, 401, 403, 404, 502, 503) } } },
    async (request) => retryCrm({ ctx: callerCtx(deps, request), input: request.body }),
  );
}
