import { createDemoVaultGateway } from "../demo/vault-gateway.js";

/** Ids `vgb_ord_…`, `vgb_txn_…`, `vgb_cv_…`; token `<customerVaultId>|<transactionId>`. */
export const createDemoVaultGatewayB = () => createDemoVaultGateway("vault_gateway_b", "vgb");
