import { createDirectPostVaultGateway } from "../vault-direct-post.js";
import { ID_PREFIX, PROVIDER } from "./provider.js";

/** The real vault_gateway_b: the same direct-post vault wire as vault_gateway_a, with its own securityKey (docs/providers.md). */
export const createVaultGatewayB = () => createDirectPostVaultGateway(PROVIDER, ID_PREFIX);
