import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { createFunnel, deleteFunnel, getFunnel, listFunnels, promoteVariant, updateFunnelOfBrand } from "./manage.js";
import { CreateFunnelBody, DeletedReply, FunnelIdParams, FunnelReply, FunnelsReply, FunnelStatsReply, PromoteBody, StatsQuery, UpdateFunnelBody } from "./schemas.js";
import { funnelStats } from "./stats.js";

const tags = ["Administration: upsell funnels"];

// Issue 19: the selected brand's upsell funnels. Thin: one verb each; roles and tenancy in the verbs.
export function registerFunnelRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/funnels",
    { schema: { tags, summary: "The brand's funnels in the order they are tried (any member)", response: { 200: FunnelsReply, ...errorResponses(400, 401, 403) } } },
    async (request) => listFunnels({ ctx: callerCtx(deps, request) }),
  );
  app.post(
    "/api/admin/funnels",
    { schema: { tags, summary: "Create a funnel (admin or owner); a draft unless `status` says", body: CreateFunnelBody, response: { 200: FunnelReply, ...errorResponses(400, 401, 403) } } },
    async (request) => createFunnel({ ctx: callerCtx(deps, request), input: request.body }),
  );
  app.get(
    "/api/admin/funnels/:id",
    { schema: { tags, summary: "A funnel with its current version (any member)", params: FunnelIdParams, response: { 200: FunnelReply, ...errorResponses(400, 401, 403, 404) } } },
    async (request) => getFunnel({ ctx: callerCtx(deps, request), input: request.params }),
  );
  app.put(
    "/api/admin/funnels/:id",
    {
      schema: {
        tags,
        summary: "Change a funnel (admin or owner): a new trigger or new steps of a live or paused funnel make a new version",
        params: FunnelIdParams,
        body: UpdateFunnelBody,
        response: { 200: FunnelReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => updateFunnelOfBrand({ ctx: callerCtx(deps, request), input: { ...request.params, body: request.body } }),
  );
  app.delete(
    "/api/admin/funnels/:id",
    { schema: { tags, summary: "Delete a funnel (admin or owner); its sessions and stats stay", params: FunnelIdParams, response: { 200: DeletedReply, ...errorResponses(400, 401, 403, 404) } } },
    async (request) => deleteFunnel({ ctx: callerCtx(deps, request), input: request.params }),
  );
  app.post(
    "/api/admin/funnels/:id/promote",
    {
      schema: {
        tags,
        summary: "Promote a variant (admin or owner): its step keeps only it, in a new version",
        params: FunnelIdParams,
        body: PromoteBody,
        response: { 200: FunnelReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => promoteVariant({ ctx: callerCtx(deps, request), input: { ...request.params, body: request.body } }),
  );
  app.get(
    "/api/admin/funnels/:id/stats",
    {
      schema: {
        tags,
        summary: "A funnel's figures per step and variant over UTC days from..to (default the last 30), net of refunds (any member)",
        params: FunnelIdParams,
        querystring: StatsQuery,
        response: { 200: FunnelStatsReply, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => funnelStats({ ctx: callerCtx(deps, request), input: { ...request.params, query: request.query } }),
  );
}
