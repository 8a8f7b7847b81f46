import type { DemoLedger } from "../demo/ledger.js";
import { createDemoVaultGateway } from "../demo/vault-gateway.js";

/** Ids `vgb_ord_…`, `vgb_txn_…`, `vgb_cv_…`; token `<customerVaultId>|<transactionId>`. */
export const createDemoVaultGatewayB = (ledger: DemoLedger) => createDemoVaultGateway(ledger, "vault_gateway_b", "vgb");
