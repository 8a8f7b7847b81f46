import { createDemoVaultGateway } from "../demo/vault-gateway.js";

export type { VaultGatewayAdapter } from "../demo/vault-gateway.js";

/** Ids `vga_ord_…`, `vga_txn_…`, `vga_cv_…`; token `<customerVaultId>|<transactionId>`. */
export const createDemoVaultGatewayA = () => createDemoVaultGateway("vault_gateway_a", "vga");
