import { Type } from "typebox";
import type { Deps } from "../ctx.js";
import { callerCtx } from "../http/auth.js";
import { errorResponses } from "../http/schemas.js";
import type { App } from "../http/types.js";
import { ReceiptSettings, UpdateReceiptSettingsBody } from "./schemas.js";
import { getReceiptSettings, updateReceiptSettings } from "./settings.js";

const tags = ["Administration: receipts"];

/** The brand's receipt switch and support address (not in SPEC; issue 17). */
export function registerReceiptRoutes(app: App, deps: Deps): void {
  app.get(
    "/api/admin/receipt-settings",
    { schema: { tags, summary: "Whether buyers of the session's brand get receipt mails, and the support address they show (any role)", response: { 200: ReceiptSettings, ...errorResponses(400, 401, 403) } } },
    async (request) => getReceiptSettings({ ctx: callerCtx(deps, request) }),
  );
  app.put(
    "/api/admin/receipt-settings",
    {
      schema: {
        tags,
        summary: "Switch receipt mails on or off for the session's brand, and set their support address (admin or owner)",
        body: UpdateReceiptSettingsBody,
        response: { 200: Type.Object({ success: Type.Literal(true), ...ReceiptSettings.properties }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => updateReceiptSettings({ ctx: callerCtx(deps, request), input: request.body }),
  );
}
