import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { providerRouteOptions, tagsOf } from "./route-options.js";
import { PROVIDER } from "../../providers/order-crm-a/provider.js";
import { confirmCrmAOrder, createCrmAOrder, payCrmAOrder } from "./order-crm-a.js";
import { ConfirmCrmAOrderBody, ConfirmCrmAOrderReply, CreateCrmAOrderBody, CreateCrmAOrderReply, CrmAPaymentBody, CrmAPaymentReply } from "./order-crm-a-schemas.js";

export function registerOrderCrmARoutes(app: App, deps: Deps): void {
  const tags = tagsOf(PROVIDER);

  app.post(
    "/api/providers/order_crm_a/create-order",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Create a CRM order to pay", body: CreateCrmAOrderBody, response: { 200: CreateCrmAOrderReply, ...errorResponses(400, 409, 422, 503) } },
    },
    async (request) => createCrmAOrder(ctxOf(deps, request), request.body),
  );

  app.post(
    "/api/providers/order_crm_a/process-payment",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Pay a CRM order by card", body: CrmAPaymentBody, response: { 200: CrmAPaymentReply, ...errorResponses(400, 402, 404, 409, 422, 429, 503) } },
    },
    async (request) => payCrmAOrder(ctxOf(deps, request), request.body),
  );

  app.post(
    "/api/providers/order_crm_a/confirm-order",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Confirm a paid CRM order", body: ConfirmCrmAOrderBody, response: { 200: ConfirmCrmAOrderReply, ...errorResponses(400, 404, 409, 422, 503) } },
    },
    async (request) => confirmCrmAOrder(ctxOf(deps, request), request.body),
  );
}
