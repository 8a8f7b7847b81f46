import { createVaultGatewayClient } from "../vault-gateway-a/client.js";

/** vault_gateway_b speaks the same direct-post API as vault_gateway_a (docs/providers.md). */
export const createVaultGatewayB = () => createVaultGatewayClient("vault_gateway_b", "vgb");
