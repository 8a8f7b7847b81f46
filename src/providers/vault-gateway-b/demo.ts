import type { DemoLedger } from "../demo/ledger.js";
import { createDemoVaultGateway } from "../demo/vault-gateway.js";
import { ID_PREFIX, PROVIDER } from "./provider.js";

/** Ids `vgb_ord_…`, `vgb_txn_…`, `vgb_cv_…`; token `<customerVaultId>|<transactionId>`. */
export const createDemoVaultGatewayB = (ledger: DemoLedger) => createDemoVaultGateway(ledger, PROVIDER, ID_PREFIX);
