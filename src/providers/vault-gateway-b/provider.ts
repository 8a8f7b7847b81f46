/**
 * vault_gateway_b's id and id prefix, used by both its adapters (demo.ts, adapter.ts). Its contract
 * (`VaultGatewayAdapter`) and token format are vault_gateway_a's: see vault-gateway-a/provider.ts.
 */

export const PROVIDER = "vault_gateway_b";
/** Ids `vgb_ord_…` (provider order; the real gateway has none, so ours), `vgb_txn_…`, `vgb_cv_…` (demo). */
export const ID_PREFIX = "vgb";
