import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { providerRouteOptions, tagsOf } from "./route-options.js";
import { PROVIDER } from "../../providers/hosted-store/provider.js";
import { completeHostedCheckout, confirmStoreOrder, createHostedCheckout } from "./hosted-store.js";
import { registerHostedStoreDemoRoutes } from "../demo-store/routes.js";
import { CompleteHostedCheckoutReply, ConfirmStoreOrderReply, CreateHostedCheckoutBody, CreateHostedCheckoutReply, StoreOrderBody } from "./hosted-store-schemas.js";

export function registerHostedStoreRoutes(app: App, deps: Deps): void {
  const tags = tagsOf(PROVIDER);

  app.post(
    "/api/providers/hosted_store/create-checkout",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Create a draft order and its hosted checkout URL", body: CreateHostedCheckoutBody, response: { 200: CreateHostedCheckoutReply, ...errorResponses(400, 409, 422, 502, 503) } },
    },
    async (request) => createHostedCheckout(ctxOf(deps, request), request.body),
  );

  app.post(
    "/api/providers/hosted_store/complete-checkout",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Complete a draft order paid on the hosted checkout", body: StoreOrderBody, response: { 200: CompleteHostedCheckoutReply, ...errorResponses(400, 404, 409, 422, 429, 502, 503) } },
    },
    async (request) => completeHostedCheckout(ctxOf(deps, request), request.body),
  );

  app.post(
    "/api/providers/hosted_store/confirm-order",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Confirm a paid store order", body: StoreOrderBody, response: { 200: ConfirmStoreOrderReply, ...errorResponses(400, 404, 409, 422, 502, 503) } },
    },
    async (request) => confirmStoreOrder(ctxOf(deps, request), request.body),
  );

  registerHostedStoreDemoRoutes(app, deps);
}
