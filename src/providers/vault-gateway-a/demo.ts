import type { DemoLedger } from "../demo/ledger.js";
import { createDemoVaultGateway } from "../demo/vault-gateway.js";

export type { VaultGatewayAdapter } from "../demo/vault-gateway.js";

/** Ids `vga_ord_…`, `vga_txn_…`, `vga_cv_…`; token `<customerVaultId>|<transactionId>`. */
export const createDemoVaultGatewayA = (ledger: DemoLedger) => createDemoVaultGateway(ledger, "vault_gateway_a", "vga");
