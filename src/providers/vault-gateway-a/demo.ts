import type { DemoLedger } from "../demo/ledger.js";
import { createDemoVaultGateway } from "../demo/vault-gateway.js";
import { ID_PREFIX, PROVIDER } from "./provider.js";

/** Ids `vga_ord_…`, `vga_txn_…`, `vga_cv_…`; token `<customerVaultId>|<transactionId>`. */
export const createDemoVaultGatewayA = (ledger: DemoLedger) => createDemoVaultGateway(ledger, PROVIDER, ID_PREFIX);
