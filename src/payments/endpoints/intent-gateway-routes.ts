import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { providerRouteOptions, tagsOf } from "./route-options.js";
import { PROVIDER } from "../../providers/intent-gateway/provider.js";
import { confirmPaymentIntent, createPaymentIntent } from "./intent-gateway.js";
import { registerIntentGatewayChallengeRoutes } from "../challenge/routes.js";
import { ConfirmIntentBody, ConfirmIntentReply, CreateIntentBody, CreateIntentReply } from "./intent-gateway-schemas.js";

export function registerIntentGatewayRoutes(app: App, deps: Deps): void {
  const tags = tagsOf(PROVIDER);

  app.post(
    "/api/providers/intent_gateway/create-intent",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Create a payment intent (demo: card fields confirm it at once)", body: CreateIntentBody, response: { 200: CreateIntentReply, ...errorResponses(400, 402, 409, 422, 429, 502, 503) } },
    },
    async (request) => createPaymentIntent(ctxOf(deps, request), request.body),
  );

  app.post(
    "/api/providers/intent_gateway/confirm",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Confirm a payment intent, or read its status", body: ConfirmIntentBody, response: { 200: ConfirmIntentReply, ...errorResponses(400, 402, 404, 409, 422, 429, 502, 503) } },
    },
    async (request) => confirmPaymentIntent(ctxOf(deps, request), request.body),
  );

  registerIntentGatewayChallengeRoutes(app, deps);
}
