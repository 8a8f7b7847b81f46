import type { Deps } from "../ctx.js";
import type { App } from "../http/types.js";
import { registerCartGatewayRoutes } from "./cart-gateway/routes.js";
import { registerHostedStoreRoutes } from "./hosted-store/routes.js";
import { registerIntentGatewayRoutes } from "./intent-gateway/routes.js";
import { registerOrderCrmARoutes } from "./order-crm-a/routes.js";
import { registerOrderCrmBRoutes } from "./order-crm-b/routes.js";
import { registerVaultGatewayARoutes } from "./vault-gateway-a/routes.js";
import { registerVaultGatewayBRoutes } from "./vault-gateway-b/routes.js";

/** SPEC "Payment provider endpoints": every row, each in its provider's folder. */
export function registerProviderRoutes(app: App, deps: Deps): void {
  registerIntentGatewayRoutes(app, deps);
  registerVaultGatewayARoutes(app, deps);
  registerOrderCrmARoutes(app, deps);
  registerOrderCrmBRoutes(app, deps);
  registerHostedStoreRoutes(app, deps);
  registerCartGatewayRoutes(app, deps);
  registerVaultGatewayBRoutes(app, deps);
}
