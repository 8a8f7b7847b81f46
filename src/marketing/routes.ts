import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { getLists, updateMappings } from "./lists.js";
import { ListsReply, UpdateMappingsBody, UpdateMappingsReply } from "./schemas.js";
import { LIST_SOURCES } from "./sources.js";

const tags = ["Marketing list mappings"];

/** SPEC "Marketing list mappings": the same pair of routes for each integration. */
export function registerMarketingRoutes(app: App, deps: Deps): void {
  for (const source of LIST_SOURCES) {
    app.get(
      `/api/admin/${source}/lists`,
      {
        schema: {
          tags,
          summary: `The ${source} lists with the brand's display names (400 with success: false when the integration is not configured; 500 Failed to fetch lists when it fails)`,
          response: { 200: ListsReply, ...errorResponses(400, 401, 403, 500) },
        },
      },
      async (request) => getLists({ ctx: callerCtx(deps, request), source }),
    );

    app.put(
      `/api/admin/${source}/lists`,
      {
        config: { missingFields: { fields: ["mappings"], message: "Invalid mappings" } },
        schema: { tags, summary: `Set display names of ${source} lists (admin or owner)`, body: UpdateMappingsBody, response: { 200: UpdateMappingsReply, ...errorResponses(400, 401, 403) } },
      },
      async (request) => updateMappings({ ctx: callerCtx(deps, request), source, input: request.body }),
    );
  }
}
