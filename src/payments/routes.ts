import type { Deps } from "../ctx.js";
import type { App } from "../http/types.js";
import { PAYMENT_PROVIDERS, type PaymentProviderType } from "../providers/manifest.js";
import { registerCartGatewayRoutes } from "./endpoints/cart-gateway-routes.js";
import { registerHostedStoreRoutes } from "./endpoints/hosted-store-routes.js";
import { registerIntentGatewayRoutes } from "./endpoints/intent-gateway-routes.js";
import { registerOrderCrmARoutes } from "./endpoints/order-crm-a-routes.js";
import { registerOrderCrmBRoutes } from "./endpoints/order-crm-b-routes.js";
import { registerVaultGatewayARoutes } from "./endpoints/vault-gateway-a-routes.js";
import { registerVaultGatewayBRoutes } from "./endpoints/vault-gateway-b-routes.js";
import type { MerchantProof } from "./endpoints/vault-gateway.js";

/** What payments' routes take from the features above them, wired in app.ts. */
export interface ProviderRouteOptions {
  /** CONTRACT §35: the merchant credential a real one-click upsell charge needs (merchant-credentials/proof.ts). */
  merchantProof: MerchantProof;
}

/** Each provider's SPEC endpoints, registered from endpoints/<provider>-routes.ts; the manifest says which providers there are. */
const REGISTER: Record<PaymentProviderType, (app: App, deps: Deps, options: ProviderRouteOptions) => void> = {
  intent_gateway: registerIntentGatewayRoutes,
  vault_gateway_a: registerVaultGatewayARoutes,
  order_crm_a: registerOrderCrmARoutes,
  order_crm_b: registerOrderCrmBRoutes,
  hosted_store: registerHostedStoreRoutes,
  cart_gateway: registerCartGatewayRoutes,
  vault_gateway_b: registerVaultGatewayBRoutes,
};

/** SPEC "Payment provider endpoints": every row, our side of each provider (the adapters are in src/providers/). */
export function registerProviderRoutes(app: App, deps: Deps, options: ProviderRouteOptions): void {
  for (const provider of PAYMENT_PROVIDERS) REGISTER[provider](app, deps, options);
}
