import { createCartGateway, createCartGatewayCrm } from "./cart-gateway/adapter.js";
import { createHostedStore } from "./hosted-store/adapter.js";
import { createIntentGateway } from "./intent-gateway/adapter.js";
import { createOrderCrmA, createOrderCrmACrm } from "./order-crm-a/adapter.js";
import { createOrderCrmB, createOrderCrmBCrm } from "./order-crm-b/adapter.js";
import type { CrmAdapters, PaymentAdapters } from "./registry.js";
import { createVaultGatewayA } from "./vault-gateway-a/adapter.js";
import { createVaultGatewayB } from "./vault-gateway-b/adapter.js";

/**
 * The real adapters (docs/providers.md). The registry hands one out when the brand's settings
 * configure the provider; a configured provider missing here would stay demo (test mode) or be 503
 * (live mode).
 */
export const realPaymentProviders: Partial<PaymentAdapters> = {
  intent_gateway: createIntentGateway(),
  hosted_store: createHostedStore(),
  cart_gateway: createCartGateway(),
  order_crm_a: createOrderCrmA(),
  order_crm_b: createOrderCrmB(),
  vault_gateway_a: createVaultGatewayA(),
  vault_gateway_b: createVaultGatewayB(),
};

/** CRM recording (`recordOrder`, `checkConnection`). */
export const realCrmProviders: Partial<CrmAdapters> = {
  order_crm_a: createOrderCrmACrm(),
  order_crm_b: createOrderCrmBCrm(),
  cart_gateway: createCartGatewayCrm(),
};
