import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { getRouting, getRoutingVersion, saveRouting } from "./routing.js";
import { RoutingQuery, RoutingReply, RoutingVersionReply, UpdateRoutingBody, VersionParams } from "./schemas.js";

const tags = ["Administration: payment routing"];

// Issue 34 item 2: the selected brand's routing rules per mode. Thin: one verb each; roles and tenancy in the verbs.
export function registerRoutingRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/routing",
    {
      schema: {
        tags,
        summary: "The brand's current routing rules of a mode (default: the brand's), cascade limit and version history (any member)",
        querystring: RoutingQuery,
        response: { 200: RoutingReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getRouting({ ctx: callerCtx(deps, request), input: request.query }),
  );
  app.get(
    "/api/admin/routing/versions/:version",
    {
      schema: {
        tags,
        summary: "One saved version of the brand's routing rules of a mode (any member)",
        params: VersionParams,
        querystring: RoutingQuery,
        response: { 200: RoutingVersionReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getRoutingVersion({ ctx: callerCtx(deps, request), input: { ...request.params, query: request.query } }),
  );
  app.put(
    "/api/admin/routing",
    {
      schema: {
        tags,
        summary: "Save the brand's ordered routing rules of a mode as a new version (admin or owner), audited",
        body: UpdateRoutingBody,
        response: { 200: RoutingReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => saveRouting({ ctx: callerCtx(deps, request), input: request.body }),
  );
}
