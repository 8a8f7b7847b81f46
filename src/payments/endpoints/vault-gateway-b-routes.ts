import type { Deps } from "../../ctx.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { providerRouteOptions, tagsOf } from "./route-options.js";
import { cardOf } from "../../providers/schemas.js";
import { processVaultPayment } from "./vault-gateway.js";
import { PROVIDER } from "../../providers/vault-gateway-b/provider.js";
import { VaultBPaymentBody, VaultPaymentReply } from "./vault-gateway-b-schemas.js";

export function registerVaultGatewayBRoutes(app: App, deps: Deps): void {
  app.post(
    "/api/providers/vault_gateway_b/process-payment",
    {
      ...providerRouteOptions,
      schema: { tags: tagsOf(PROVIDER), summary: "Charge a card and vault it", body: VaultBPaymentBody, response: { 200: VaultPaymentReply, ...errorResponses(400, 402, 409, 422, 429, 502, 503) } },
    },
    async (request) => {
      const body = request.body;
      return processVaultPayment(ctxOf(deps, request), PROVIDER, {
        orderId: body.orderId,
        amountCents: body.amount,
        // SPEC: currency is optional here, default USD.
        currency: body.currency ?? "USD",
        customer: body.customer,
        billingAddress: body.billingAddress,
        shippingAddress: body.shippingAddress,
        lineItems: body.lineItems,
        card: cardOf(body),
      });
    },
  );
}
