import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { adminRequest, ROLES } from "../access.js";
import { getBranding } from "./branding.js";
import { BrandingReply, SettingsReply, UpdateSettingsBody, UpdateSettingsReply } from "./schemas.js";
import { getSettings, updateSettings } from "./settings.js";

const tags = ["Administration: settings"];

export function registerSettingsRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/settings",
    { schema: { tags, summary: "The session brand's provider settings (secrets masked), status per provider", response: { 200: SettingsReply, ...errorResponses(400, 401, 403) } } },
    async (request) => getSettings(adminRequest(deps, request, ROLES.session)),
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
    async (request) => updateSettings({ ...adminRequest(deps, request, ROLES.adminOrOwner), input: request.body }),
  );

  app.get(
    "/api/admin/branding",
    { schema: { tags, summary: "The company name of the brand serving this host (no authentication)", response: { 200: BrandingReply } } },
    async (request) => getBranding({ ctx: ctxOf(deps, request), host: request.hostname }),
  );
}
