import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { providerRouteOptions, tagsOf } from "./route-options.js";
import { PROVIDER } from "../../providers/order-crm-b/provider.js";
import { payCrmBOrder } from "./order-crm-b.js";
import { CrmBPaymentBody, CrmBPaymentReply } from "./order-crm-b-schemas.js";

export function registerOrderCrmBRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/providers/order_crm_b/process-payment",
    {
      ...providerRouteOptions,
      schema: { tags: tagsOf(PROVIDER), summary: "Create a CRM order and pay it by card", body: CrmBPaymentBody, response: { 200: CrmBPaymentReply, ...errorResponses(400, 402, 409, 422, 429, 502, 503) } },
    },
    async (request) => payCrmBOrder(ctxOf(deps, request), request.body),
  );
}
