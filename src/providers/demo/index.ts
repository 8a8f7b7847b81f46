import { createDemoCartGateway, createDemoCartGatewayCrm } from "../cart-gateway/demo.js";
import { createDemoHostedStore } from "../hosted-store/demo.js";
import { createDemoIntentGateway } from "../intent-gateway/demo.js";
import { createDemoOrderCrmA, createDemoOrderCrmACrm } from "../order-crm-a/demo.js";
import { createDemoOrderCrmB, createDemoOrderCrmBCrm } from "../order-crm-b/demo.js";
import type { DemoCrmFactories, DemoPaymentFactories } from "../registry.js";
import { createDemoVaultGatewayA } from "../vault-gateway-a/demo.js";
import { createDemoVaultGatewayB } from "../vault-gateway-b/demo.js";

/**
 * The demo adapter of every provider: what the registry returns while a brand has no credentials,
 * built over the demo ledger the registry hands it (bound to the caller's database handle).
 */
export const demoPaymentProviders = {
  intent_gateway: createDemoIntentGateway,
  vault_gateway_a: createDemoVaultGatewayA,
  order_crm_a: createDemoOrderCrmA,
  order_crm_b: createDemoOrderCrmB,
  hosted_store: createDemoHostedStore,
  cart_gateway: createDemoCartGateway,
  vault_gateway_b: createDemoVaultGatewayB,
} satisfies DemoPaymentFactories;

export const demoCrmProviders = {
  order_crm_a: createDemoOrderCrmACrm,
  order_crm_b: createDemoOrderCrmBCrm,
  cart_gateway: createDemoCartGatewayCrm,
} satisfies DemoCrmFactories;
