import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { providerRouteOptions, tagsOf } from "./route-options.js";
import { PROVIDER } from "../../providers/cart-gateway/provider.js";
import { createCart, payCart } from "./cart-gateway.js";
import { CartPaymentBody, CartPaymentReply, CreateCartBody, CreateCartReply } from "./cart-gateway-schemas.js";

export function registerCartGatewayRoutes(app: App, deps: Deps): void {
  const tags = tagsOf(PROVIDER);

  app.post(
    "/api/providers/cart_gateway/create-cart",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Create a cart order to pay", body: CreateCartBody, response: { 200: CreateCartReply, ...errorResponses(400, 409, 422, 502, 503) } },
    },
    async (request) => createCart(ctxOf(deps, request), request.body),
  );

  app.post(
    "/api/providers/cart_gateway/process-payment",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Pay a cart order by card", body: CartPaymentBody, response: { 200: CartPaymentReply, ...errorResponses(400, 402, 404, 409, 422, 429, 502, 503) } },
    },
    async (request) => payCart(ctxOf(deps, request), request.body),
  );
}
