import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { ctxOf } from "../http/ctx.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { createSalesperson, listSalespeople } from "./manage.js";
import { describePortal, loginSalesperson, logoutSalesperson, portalCookieOptions, SALESPERSON_COOKIE } from "./portal.js";
import {
  CreateSalespersonBody,
  CreateSalespersonReply,
  ListSalespeopleReply,
  PortalLoginBody,
  PortalLoginReply,
  PortalLogoutReply,
  PortalStateQuery, PortalStateReply,
} from "./schemas.js";

const ADMIN_TAGS = ["Administration: salespeople"];
const PORTAL_TAGS = ["Salesperson portal"];

export function registerSalespeopleRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/admin/salespeople",
    {
      config: { idempotent: true },
      schema: {
        tags: ADMIN_TAGS,
        summary: "Create a salesperson account in the session's organization (admin or owner)",
        body: CreateSalespersonBody,
        response: { 200: CreateSalespersonReply, ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    async (request) => {
      return createSalesperson({ ctx: callerCtx(deps, request), input: request.body });
    },
  );

  app.get(
    "/api/admin/salespeople",
    { schema: { tags: ADMIN_TAGS, summary: "The organization's salespeople (admin or owner)", response: { 200: ListSalespeopleReply, ...errorResponses(401, 403) } } },
    async (request) => {
      return listSalespeople({ ctx: callerCtx(deps, request) });
    },
  );

  app.post(
    "/api/salesperson/auth",
    {
      schema: {
        tags: PORTAL_TAGS,
        summary: "Salesperson login: sets the salesperson cookie (its own, granting nothing under /api/admin)",
        security: [],
        body: PortalLoginBody,
        response: { 200: PortalLoginReply, ...errorResponses(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { sessionId, salesperson } = await loginSalesperson({ ctx: ctxOf(deps, request), input: request.body });
      reply.setCookie(SALESPERSON_COOKIE, sessionId, portalCookieOptions(deps.config));
      return { success: true, salesperson };
    },
  );

  app.get(
    "/api/salesperson/auth",
    {
      schema: {
        tags: PORTAL_TAGS,
        summary: "The signed-in salesperson and the sums of their commissions of one mode",
        querystring: PortalStateQuery,
        response: { 200: PortalStateReply, ...errorResponses(400, 401) },
      },
    },
    async (request) => describePortal({ ctx: ctxOf(deps, request), rawId: request.cookies[SALESPERSON_COOKIE], livemode: request.query.livemode }),
  );

  app.delete(
    "/api/salesperson/auth",
    { schema: { tags: PORTAL_TAGS, summary: "Salesperson logout", security: [{ salespersonSession: [] }, {}], response: { 200: PortalLogoutReply } } },
    async (request, reply) => {
      await logoutSalesperson({ ctx: ctxOf(deps, request), rawId: request.cookies[SALESPERSON_COOKIE] });
      reply.clearCookie(SALESPERSON_COOKIE, { path: "/" });
      return { success: true };
    },
  );
}
