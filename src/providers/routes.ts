import type { Deps } from "../ctx.js";
import type { App } from "../http/types.js";
import { PAYMENT_PROVIDERS, type PaymentProviderType } from "./manifest.js";
import { registerCartGatewayRoutes } from "./cart-gateway/routes.js";
import { registerHostedStoreRoutes } from "./hosted-store/routes.js";
import { registerIntentGatewayRoutes } from "./intent-gateway/routes.js";
import { registerOrderCrmARoutes } from "./order-crm-a/routes.js";
import { registerOrderCrmBRoutes } from "./order-crm-b/routes.js";
import { registerVaultGatewayARoutes } from "./vault-gateway-a/routes.js";
import { registerVaultGatewayBRoutes } from "./vault-gateway-b/routes.js";

/** Each provider's SPEC endpoints, registered from its folder; the manifest says which providers there are. */
const REGISTER: Record<PaymentProviderType, (app: App, deps: Deps) => void> = {
  intent_gateway: registerIntentGatewayRoutes,
  vault_gateway_a: registerVaultGatewayARoutes,
  order_crm_a: registerOrderCrmARoutes,
  order_crm_b: registerOrderCrmBRoutes,
  hosted_store: registerHostedStoreRoutes,
  cart_gateway: registerCartGatewayRoutes,
  vault_gateway_b: registerVaultGatewayBRoutes,
};

/** SPEC "Payment provider endpoints": every row, each in its provider's folder. */
export function registerProviderRoutes(app: App, deps: Deps): void {
  for (const provider of PAYMENT_PROVIDERS) REGISTER[provider](app, deps);
}
