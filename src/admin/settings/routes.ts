import type { Deps } from "../../ctx.js";
import { callerCtx } from "../../http/auth.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { getBranding, getSessionBrandLook, updateBranding } from "./branding.js";
import { updateDemoOutage } from "./demo-outage.js";
import { BrandingReply, DemoOutageBody, DemoOutageReply, SettingsReply, UpdateBrandingBody, UpdateBrandingReply, UpdateSettingsBody, UpdateSettingsReply } from "./schemas.js";
import { getSettings, updateSettings } from "./settings.js";

const tags = ["Administration: settings"];

export function registerSettingsRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/settings",
    { schema: { tags, summary: "The session brand's provider settings (secrets masked), status per provider", response: { 200: SettingsReply, ...errorResponses(400, 401, 403) } } },
    async (request) => getSettings({ ctx: callerCtx(deps, request) }),
  );

  app.post(
    "/api/admin/settings",
    {
      schema: {
        tags,
        summary: "Store one provider's settings for the session brand (merged; secrets sealed)",
        body: UpdateSettingsBody,
        response: { 200: UpdateSettingsReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => updateSettings({ ctx: callerCtx(deps, request), input: request.body }),
  );

  app.put(
    "/api/admin/settings/demo-outage",
    {
      schema: {
        tags,
        summary: "Not in SPEC (issue 34): the \"Simulate outage\" switch of a payment provider's demo adapter, test mode only (admin or owner)",
        body: DemoOutageBody,
        response: { 200: DemoOutageReply, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request) => updateDemoOutage({ ctx: callerCtx(deps, request), input: request.body }),
  );

  app.get(
    "/api/admin/branding",
    { schema: { tags, summary: "The name, logo and colour of the brand serving this host (no authentication)", security: [], response: { 200: BrandingReply } } },
    async (request) => getBranding({ ctx: ctxOf(deps, request), host: request.hostname }),
  );

  app.get(
    "/api/admin/brand-look",
    { schema: { tags, summary: "Not in SPEC: the session brand's name, logo and colour as stored (any role)", response: { 200: BrandingReply, ...errorResponses(400, 401, 403) } } },
    async (request) => getSessionBrandLook({ ctx: callerCtx(deps, request) }),
  );

  app.put(
    "/api/admin/branding",
    {
      schema: {
        tags,
        summary: "Not in SPEC: set the session brand's logo URL and colour for the checkout and upsell pages (admin or owner)",
        body: UpdateBrandingBody,
        response: { 200: UpdateBrandingReply, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => updateBranding({ ctx: callerCtx(deps, request), input: request.body }),
  );
}
