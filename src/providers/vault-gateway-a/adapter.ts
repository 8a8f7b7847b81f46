import { createDirectPostVaultGateway } from "../vault-direct-post.js";

/** The real vault_gateway_a: the direct-post vault wire (docs/providers.md) with its own securityKey. */
export const createVaultGatewayA = () => createDirectPostVaultGateway("vault_gateway_a", "vga");
