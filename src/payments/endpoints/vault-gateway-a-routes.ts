import type { Deps } from "../../ctx.js";
import { callerCtx, OPTIONAL_API_KEY_CALLER } from "../../http/auth.js";
import { ctxOf } from "../../http/ctx.js";
import { errorResponses } from "../../http/schemas.js";
import type { App } from "../../http/types.js";
import { providerRouteOptions, tagsOf } from "./route-options.js";
import { cardOf } from "../../providers/schemas.js";
import { processVaultPayment, processVaultUpsell, type MerchantProof } from "./vault-gateway.js";
import { PROVIDER } from "../../providers/vault-gateway-a/provider.js";
import { VaultAPaymentBody, VaultPaymentReply, VaultUpsellBody, VaultUpsellReply } from "./vault-gateway-a-schemas.js";

export function registerVaultGatewayARoutes(app: App, deps: Deps, { merchantProof }: { merchantProof: MerchantProof }): void {
  const tags = tagsOf(PROVIDER);

  app.post(
    "/api/providers/vault_gateway_a/process-payment",
    {
      ...providerRouteOptions,
      schema: { tags, summary: "Charge a card and vault it", body: VaultAPaymentBody, response: { 200: VaultPaymentReply, ...errorResponses(400, 402, 409, 422, 429, 502, 503) } },
    },
    async (request) => {
      const body = request.body;
      return processVaultPayment(ctxOf(deps, request), PROVIDER, { orderId: body.orderId, amountCents: body.amount, currency: body.currency, customer: body.customer, billingAddress: body.billingAddress, card: cardOf(body) });
    },
  );

  app.post(
    "/api/providers/vault_gateway_a/process-upsell",
    {
      ...providerRouteOptions,
      config: { ...providerRouteOptions.config, caller: OPTIONAL_API_KEY_CALLER },
      schema: {
        tags,
        summary: "One-click upsell charge of the vaulted method of originalOrderId (Bearer API key of the order's brand with upsell:write, except in demo mode)",
        body: VaultUpsellBody,
        response: { 200: VaultUpsellReply, ...errorResponses(400, 401, 402, 403, 409, 422, 429, 502, 503) },
      },
    },
    async (request) => processVaultUpsell(callerCtx(deps, request), request.body, merchantProof),
  );
}
