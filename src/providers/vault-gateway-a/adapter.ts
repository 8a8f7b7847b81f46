import { createDirectPostVaultGateway } from "../vault-direct-post.js";
import { ID_PREFIX, PROVIDER } from "./provider.js";

/** The real vault_gateway_a: the direct-post vault wire (docs/providers.md) with its own securityKey. */
export const createVaultGatewayA = () => createDirectPostVaultGateway(PROVIDER, ID_PREFIX);
