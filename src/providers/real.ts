import { createCartGateway, createCartGatewayCrm } from "./cart-gateway/adapter.js";
import { createHostedStore } from "./hosted-store/adapter.js";
import { createIntentGateway } from "./intent-gateway/adapter.js";
import { createOrderCrmACrm } from "./order-crm-a/adapter.js";
import { createOrderCrmB, createOrderCrmBCrm } from "./order-crm-b/adapter.js";
import type { CrmAdapters, PaymentAdapters } from "./registry.js";
import { createVaultGatewayA } from "./vault-gateway-a/adapter.js";
import { createVaultGatewayB } from "./vault-gateway-b/adapter.js";

/**
 * The real adapters built so far (docs/providers.md). The registry hands one out when the brand's
 * settings configure the provider; a configured provider missing here stays demo (test mode) or is
 * 503 (live mode).
 */
export const realPaymentProviders: Partial<PaymentAdapters> = {
  intent_gateway: createIntentGateway(),
  hosted_store: createHostedStore(),
  cart_gateway: createCartGateway(),
  order_crm_b: createOrderCrmB(),
  vault_gateway_a: createVaultGatewayA(),
  vault_gateway_b: createVaultGatewayB(),
};

/** CRM recording (`recordOrder`, `checkConnection`). order_crm_a's payment side is still demo (no client yet). */
export const realCrmProviders: Partial<CrmAdapters> = {
  order_crm_a: createOrderCrmACrm(),
  order_crm_b: createOrderCrmBCrm(),
  cart_gateway: createCartGatewayCrm(),
};
