import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { GenerateLinkBody, GenerateLinkReply, generateSalesLink } from "./generate-link.js";

export function registerLinkRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/admin/tools/generate-link",
    {
      config: { idempotent: true },
      schema: {
        tags: ["Administration: utilities"],
        summary: "Generate a checkout link with sales attribution for the session's brand (admin or owner; also in live mode)",
        body: GenerateLinkBody,
        response: { 200: GenerateLinkReply, ...errorResponses(400, 401, 403, 404, 409, 422) },
      },
    },
    async (request) => {
      return generateSalesLink({ ctx: callerCtx(deps, request), input: request.body });
    },
  );
}
